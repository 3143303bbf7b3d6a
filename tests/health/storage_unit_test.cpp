// Storage pieces without MPI: the scratch file removes itself (also on a throw) and never a
// file that replaced it, target checks, one measurement validated, a planted wrong word caught.
#include "health/storage/scratch_file.hpp"
#include "health/storage/storage_io.hpp"
#include "health/storage/storage_target.hpp"
#include "temp_folder.hpp"

#include "core/errors.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <stdexcept>

namespace shakedown::health {
namespace {

using shakedown::testing::TempFolder;

TEST(ScratchFile, RemovedAtScopeExitAndOnException) {
    const TempFolder folder("health-scratch");
    {
        const ScratchFile file(folder.path(), "unit", false);
        EXPECT_TRUE(std::filesystem::exists(file.path()));
        EXPECT_EQ(folder.entries().size(), 1u);
    }
    EXPECT_TRUE(folder.entries().empty());
    try {
        const ScratchFile file(folder.path(), "unit", false);
        ASSERT_EQ(::write(file.fd(), "abc", 3), 3);
        throw std::runtime_error("midway");
    } catch (const std::runtime_error&) {
    }
    EXPECT_TRUE(folder.entries().empty());
}

TEST(ScratchFile, NeverRemovesAFileThatReplacedIt) {
    const TempFolder folder("health-scratch");
    std::filesystem::path replaced;
    {
        const ScratchFile file(folder.path(), "unit", false);
        replaced = file.path();
        std::filesystem::remove(replaced);
        std::ofstream(replaced) << "somebody else's data";  // same name, another inode
    }
    ASSERT_TRUE(std::filesystem::exists(replaced));
    std::ifstream kept(replaced);
    std::string text;
    std::getline(kept, text);
    EXPECT_EQ(text, "somebody else's data");
}

TEST(StorageTarget, MissingNotADirectoryAndUnwritableAreInputErrors) {
    const TempFolder folder("health-target");
    EXPECT_NO_THROW(check_storage_target(folder.path()));
    EXPECT_TRUE(folder.entries().empty());  // the probe file is gone
    try {
        check_storage_target(folder.path() / "absent");
        FAIL() << "no InputError";
    } catch (const InputError& error) {
        EXPECT_NE(std::string(error.what()).find("does not exist"), std::string::npos) << error.what();
    }
    std::ofstream(folder.path() / "plain") << "x";
    EXPECT_THROW(check_storage_target(folder.path() / "plain"), InputError);
    // sysfs refuses new files even to root: a target that cannot take a file.
    try {
        check_storage_target("/sys/kernel");
        FAIL() << "no InputError";
    } catch (const InputError& error) {
        EXPECT_NE(std::string(error.what()).find("not writable"), std::string::npos) << error.what();
    }
}

TEST(StorageTarget, EmptyTargetIsTheCurrentDirectory) {
    EXPECT_EQ(resolve_storage_target(""), std::filesystem::current_path());
}

StorageOptions small_options() {
    StorageOptions options;
    options.file_bytes = 4u << 20;
    options.block_bytes = 256u << 10;
    options.random_seconds = 0.1;
    options.seed = 7;
    return options;
}

TEST(StorageIo, SmallRunValidatesAndCleansUp) {
    const TempFolder folder("health-io");
    const StorageFigures figures = measure_storage(folder.path(), small_options());
    EXPECT_TRUE(figures.validation_error.empty()) << figures.validation_error;
    EXPECT_EQ(figures.bytes, 4u << 20);
    EXPECT_GT(figures.write_gbs(), 0.0);
    EXPECT_GT(figures.read_gbs(), 0.0);
    EXPECT_GT(figures.random_reads, 0u);
    EXPECT_GT(figures.random_iops(), 0.0);
    EXPECT_TRUE(figures.cache_mode == "o_direct" || figures.cache_mode == "fadvise_dontneed" ||
                figures.cache_mode == "memory_file_system")
        << figures.cache_mode;
    EXPECT_TRUE(folder.entries().empty());
}

TEST(StorageIo, PlantedWrongWordIsCaughtAndFileRemoved) {
    const TempFolder folder("health-io");
    StorageOptions options = small_options();
    options.plant_corruption = true;
    const StorageFigures figures = measure_storage(folder.path(), options);
    // Block 8 of 16 (256 KiB each), word 16384 of the block: byte 2 MiB + 128 KiB.
    EXPECT_NE(figures.validation_error.find("byte offset 2228224 reads"), std::string::npos) << figures.validation_error;
    EXPECT_TRUE(folder.entries().empty());
}

TEST(StorageIo, BufferedFallbackWhenDirectNotTried) {
    const TempFolder folder("health-io");
    StorageOptions options = small_options();
    options.try_direct = false;
    const StorageFigures figures = measure_storage(folder.path(), options);
    EXPECT_TRUE(figures.validation_error.empty());
    EXPECT_NE(figures.cache_mode, "o_direct");
}

TEST(StorageIo, PatternDiffersBetweenSeedsAndWords) {
    EXPECT_NE(pattern_word(1, 0), pattern_word(2, 0));
    EXPECT_NE(pattern_word(1, 0), pattern_word(1, 1));
    EXPECT_EQ(pattern_word(3, 99), pattern_word(3, 99));
}

}  // namespace
}  // namespace shakedown::health
