// write_file_atomically: what it refuses, and what a full disk leaves; an output set and its lock.
#include "core/errors.hpp"
#include "core/output_file.hpp"
#include "../support/full_file_system.hpp"

#include <gtest/gtest.h>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

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

std::filesystem::path new_folder() {
    std::string pattern = (std::filesystem::temp_directory_path() / "shakedown-output-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    return pattern;
}

// Nothing of a set is in place before commit: a process killed while writing its files (here:
// one that ends before commit, or one whose set is dropped) leaves the old set whole.
TEST(OutputSet, NoFileIsInPlaceBeforeCommitAndAllAreAfter) {
    const auto dir = new_folder();
    std::ofstream(dir / "summary.json") << "old summary\n";
    std::ofstream(dir / "report.html") << "old report\n";
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {  // killed between its writes: no destructor runs
        OutputSet set;
        set.add(dir / "summary.json", "new summary\n");
        ::_exit(0);
    }
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    EXPECT_EQ(read_text(dir / "summary.json"), "old summary\n");
    {
        OutputSet dropped;
        dropped.add(dir / "summary.json", "dropped\n");
        dropped.add(dir / "report.html", "dropped\n");
    }
    EXPECT_EQ(read_text(dir / "summary.json"), "old summary\n");
    EXPECT_EQ(read_text(dir / "report.html"), "old report\n");
    OutputSet set;
    set.add(dir / "summary.json", "new summary\n");
    set.add(dir / "report.html", "new report\n");
    EXPECT_EQ(read_text(dir / "report.html"), "old report\n");
    set.commit();
    EXPECT_EQ(read_text(dir / "summary.json"), "new summary\n");
    EXPECT_EQ(read_text(dir / "report.html"), "new report\n");
    // The dropped set's temporary files are gone; the killed child's stays under a hidden name.
    std::size_t hidden = 0;
    for (const auto& name : names_in(dir)) hidden += name.front() == '.' ? 1 : 0;
    EXPECT_EQ(hidden, 1u);
    std::filesystem::remove_all(dir);
}

// A target replaced by a link between add and commit is refused before any file is renamed.
TEST(OutputSet, ATargetReplacedBeforeCommitRefusesTheWholeSet) {
    const auto dir = new_folder();
    OutputSet set;
    set.add(dir / "a.txt", "a\n");
    set.add(dir / "b.txt", "b\n");
    std::filesystem::create_symlink("/dev/null", dir / "b.txt");
    EXPECT_THROW(set.commit(), InputError);
    EXPECT_FALSE(std::filesystem::exists(dir / "a.txt"));
    std::filesystem::remove_all(dir);
}

// Two writers of one folder: the second waits for the first's lock, and names the folder when it
// is not freed in time.
TEST(OutputFolderLock, ASecondWriterWaitsAndThenSaysWhoHoldsTheFolder) {
    const auto dir = new_folder();
    {
        const OutputFolderLock first(dir, 1.0);
        try {
            const OutputFolderLock second(dir, 0.2);
            ADD_FAILURE() << "two locks held at once";
        } catch (const InputError& error) {
            EXPECT_EQ(std::string(error.what()), "another analysis is writing in " + dir.string() + "; waited 0.2 s");
        }
    }
    EXPECT_NO_THROW(OutputFolderLock(dir, 0.2));  // released with the first
    EXPECT_THROW(OutputFolderLock(dir / "absent", 0.2), InputError);
    std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace shakedown::testing
