// The one process runner (core/process_runner.hpp): argv without a shell, both streams, exit
// codes, and the time limit and process group that keep a program's helpers from outliving it or
// holding its output open.
#include "core/errors.hpp"
#include "core/process_runner.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <optional>
#include <string>
#include <thread>

namespace shakedown {
namespace {

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// The state letter of /proc/PID/stat ('R', 'S', 'Z', ...), or nothing once the pid is gone.
std::optional<char> process_state(pid_t pid) {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string line;
    if (!std::getline(stat, line)) return std::nullopt;
    const auto name_end = line.rfind(')');  // the name may hold spaces and parentheses
    if (name_end == std::string::npos || name_end + 2 >= line.size()) return std::nullopt;
    return line[name_end + 2];
}

// Whether the process no longer runs. A killed orphan belongs to the machine's init, which may
// reap it late or never (a container's init need not reap), so a zombie counts as gone: it no
// longer runs and holds nothing open.
bool gone(pid_t pid) {
    for (int i = 0; i < 100; ++i) {
        const auto state = process_state(pid);
        if (!state || *state == 'Z' || *state == 'X') return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return false;
}

TEST(Process, RunsWithArgvAndCapturesBothStreams) {
    const auto result = run_process({"sh", "-c", "echo out; echo err >&2; exit 7"});
    EXPECT_EQ(result.exit_code, 7);
    EXPECT_EQ(result.out, "out\n");
    EXPECT_EQ(result.err, "err\n");
    EXPECT_FALSE(result.timed_out);
}

TEST(Process, MergedStreamsKeepTheOrderWritten) {
    const auto result = run_process({"sh", "-c", "echo one; echo two >&2; echo three"}, 10.0, OutputStreams::merged);
    EXPECT_EQ(result.exit_code, 0);
    EXPECT_EQ(result.out, "one\ntwo\nthree\n");
    EXPECT_EQ(result.err, "");
}

TEST(Process, ArgumentsAreNotInterpreted) {
    const auto result = run_process({"printf", "%s|", "$(id)", "a b", "'q'"});
    EXPECT_EQ(result.out, "$(id)|a b|'q'|");
}

TEST(Process, MissingProgramGives127) {
    const auto result = run_process({"/nonexistent/shakedown-no-such-program"});
    EXPECT_EQ(result.exit_code, 127);
    EXPECT_FALSE(result.started);
    EXPECT_TRUE(contains(result.err, "cannot run")) << result.err;
    EXPECT_THROW(run_process({}), InputError);
}

TEST(Process, TimeoutKillsTheProgram) {
    const auto result = run_process({"sleep", "30"}, 0.3);
    EXPECT_TRUE(result.timed_out);
    EXPECT_EQ(result.exit_code, 128 + 9);
}

TEST(Process, DescribeQuotesOnlyWhatNeedsIt) {
    EXPECT_EQ(describe_command({"sbatch", "--parsable", "/a/job.sbatch"}), "sbatch --parsable /a/job.sbatch");
    EXPECT_EQ(describe_command({"echo", "it's here", ""}), "echo 'it'\\''s here' ''");
}

// A helper that keeps the output pipe open (a browser's zygote, a daemon started in the
// background) no longer holds the runner until the time limit: once the program exits, its group
// is killed and the output read to its end.
TEST(Process, AHelperLeftInTheGroupDoesNotHoldTheRunnerAndIsKilled) {
    // 60 s, and a limit of weeks (whose milliseconds do not fit an int): the exit is looked for all the same.
    for (const double limit_s : {60.0, 1e308}) {
        const auto start = std::chrono::steady_clock::now();
        const auto result = run_process({"sh", "-c", "sleep 60 & echo $!"}, limit_s);
        EXPECT_LT(seconds_since(start), 10.0) << limit_s;
        EXPECT_FALSE(result.timed_out);
        EXPECT_EQ(result.exit_code, 0);
        ASSERT_FALSE(result.out.empty());
        const auto helper = static_cast<pid_t>(std::stoi(result.out));
        EXPECT_TRUE(gone(helper)) << "the background sleep outlived the runner, state "
                                  << process_state(helper).value_or('-');
    }
}

// Past the limit the whole group goes, not only the program.
TEST(Process, TheTimeLimitKillsTheWholeGroup) {
    const auto start = std::chrono::steady_clock::now();
    const auto result = run_process({"sh", "-c", "sleep 60 & echo $!; wait"}, 0.5);
    EXPECT_LT(seconds_since(start), 10.0);
    EXPECT_TRUE(result.timed_out);
    ASSERT_FALSE(result.out.empty());
    const auto helper = static_cast<pid_t>(std::stoi(result.out));
    EXPECT_TRUE(gone(helper)) << "the background sleep outlived the time limit, state "
                              << process_state(helper).value_or('-');
}

// A program that ends on its own, with nothing left behind, is not called timed out.
TEST(Process, AnOrdinaryProgramIsNotKilled) {
    const auto result = run_process({"sh", "-c", "echo done"}, 1e308);
    EXPECT_FALSE(result.timed_out);
    EXPECT_TRUE(result.started);
    EXPECT_EQ(result.out, "done\n");
}

}  // namespace
}  // namespace shakedown
