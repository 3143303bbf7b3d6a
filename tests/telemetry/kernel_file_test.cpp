#include "telemetry/kernel_file.hpp"

#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

namespace shakedown {
namespace {

TEST(KernelFile, MissingFileIsNotOpen) {
    KernelFile file("/nonexistent/shakedown/file");
    EXPECT_FALSE(file.is_open());
    std::array<char, 16> buffer{};
    EXPECT_FALSE(file.read(buffer));
}

// Only regular files: a FIFO would block the open until a writer came, a folder reads nothing.
TEST(KernelFile, AFifoOrAFolderIsNotOpenAndDoesNotBlock) {
    const auto fifo = std::filesystem::temp_directory_path() / ("shakedown_kernel_file_fifo_" + std::to_string(::getpid()));
    std::filesystem::remove(fifo);
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    EXPECT_FALSE(KernelFile(fifo.string()).is_open());
    std::filesystem::remove(fifo);
    EXPECT_FALSE(KernelFile(std::filesystem::temp_directory_path().string()).is_open());
}

TEST(KernelFile, RereadsFromTheStartEachTime) {
    const auto path = std::filesystem::temp_directory_path() / "shakedown_kernel_file_test";
    std::ofstream(path) << "2400000\n";
    KernelFile file(path.string());
    std::array<char, 32> buffer{};
    EXPECT_EQ(file.read_number(buffer), 2400000.0);
    std::ofstream(path) << "1800000\n";  // the value changes between samples
    EXPECT_EQ(file.read_number(buffer), 1800000.0);
    std::filesystem::remove(path);
}

TEST(KernelFile, ParsesLeadingNumbersAndKeys) {
    EXPECT_EQ(leading_number("0.52 0.58 0.59 1/123 4567"), 0.52);
    EXPECT_EQ(leading_number("  42\n"), 42.0);
    EXPECT_FALSE(leading_number("abc"));
    EXPECT_FALSE(leading_number(""));
    const std::string_view meminfo = "MemTotal:       24000000 kB\nMemFree:  100 kB\nMemAvailable:   12345678 kB\n";
    EXPECT_EQ(number_after(meminfo, "MemAvailable:"), 12345678.0);
    EXPECT_EQ(number_after(meminfo, "MemFree:"), 100.0);
    EXPECT_FALSE(number_after(meminfo, "SwapTotal:"));
    EXPECT_FALSE(number_after("XMemFree: 5 kB\n", "MemFree:"));  // keys match whole line starts only
}

}  // namespace
}  // namespace shakedown
