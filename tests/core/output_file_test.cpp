// write_file_atomically: what it refuses, and what a full disk leaves.
#include "core/errors.hpp"
#include "core/output_file.hpp"
#include "../support/full_file_system.hpp"

#include <gtest/gtest.h>

#include <sys/stat.h>

#include <algorithm>
#include <fstream>
#include <sstream>

namespace shakedown::testing {
namespace {

std::string read_text(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

std::vector<std::string> names_in(const std::filesystem::path& folder) {
    std::vector<std::string> names;
    for (const auto& entry : std::filesystem::directory_iterator(folder)) names.push_back(entry.path().filename());
    std::sort(names.begin(), names.end());
    return names;
}

std::string error_of(const std::filesystem::path& path, const std::string& content) {
    try {
        write_file_atomically(path, content);
    } catch (const InputError& error) {
        return error.what();
    }
    return "no error";
}

TEST(OutputFile, ReplacesARegularFileAndRefusesWhatIsNotOne) {
    std::string pattern = (std::filesystem::temp_directory_path() / "shakedown-output-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    const std::filesystem::path dir = pattern;
    std::ofstream(dir / "old.txt") << "old\n";
    write_file_atomically(dir / "old.txt", "new\n");
    EXPECT_EQ(read_text(dir / "old.txt"), "new\n");
    std::filesystem::create_symlink(dir / "old.txt", dir / "link");
    EXPECT_EQ(error_of(dir / "link", "x"), "cannot write " + (dir / "link").string() + ": it is a symbolic link; not replaced");
    ASSERT_EQ(::mkfifo((dir / "fifo").c_str(), 0600), 0);
    EXPECT_EQ(error_of(dir / "fifo", "x"),
              "cannot write " + (dir / "fifo").string() + ": not a regular file (a FIFO); not replaced");
    EXPECT_EQ(error_of(dir / "absent" / "x", "x"), "cannot write " + (dir / "absent" / "x").string() + ": No such file or directory");
    EXPECT_EQ(read_text(dir / "old.txt"), "new\n");
    EXPECT_EQ(names_in(dir), (std::vector<std::string>{"fifo", "link", "old.txt"}));
    std::filesystem::remove_all(dir);
}

// "cannot write run.json.tmp" gave no reason and left a 0-byte temporary file. On a file system
// with no byte free the message now says why, nothing half written stays, and the file that was
// there keeps what it held.
TEST(OutputFile, AFullFileSystemGivesTheReasonAndLeavesNothingHalfMade) {
    FullFileSystem full;
    if (!full.available()) GTEST_SKIP() << "no full file system to test on: " << full.why_not();
    const std::filesystem::path target = full.path() / "run.json";
    full.with_space([&] { std::ofstream(target) << "{\"status\": \"running\"}\n"; });
    EXPECT_EQ(error_of(target, std::string(100000, 'x')), "cannot write " + target.string() + ": No space left on device");
    EXPECT_EQ(read_text(target), "{\"status\": \"running\"}\n");
    EXPECT_EQ(names_in(full.path()), (std::vector<std::string>{FullFileSystem::filler, "run.json"}));
    const std::filesystem::path fresh = full.path() / "summary.json";
    EXPECT_EQ(error_of(fresh, std::string(100000, 'x')), "cannot write " + fresh.string() + ": No space left on device");
    EXPECT_EQ(names_in(full.path()), (std::vector<std::string>{FullFileSystem::filler, "run.json"}));
}

}  // namespace
}  // namespace shakedown::testing
