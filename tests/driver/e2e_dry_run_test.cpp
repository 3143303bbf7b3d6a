// `shakedown run --dry-run`: the plan of a run, printed before anything starts, with nothing
// written; and wildcard selection of tests, which the plan shows resolved.
#include "e2e_support.hpp"

#include <gtest/gtest.h>

namespace shakedown::testing {
namespace {

bool holds(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(DryRun, PrintsThePlanAndWritesNothing) {
    const ScratchFolder scratch("dry-run");
    const auto parent = scratch.path() / "runs";
    const auto config = scratch.write("plan.yaml", R"(
params:
  burnin: {duration_s: 7}
watchdog: {deadlines: {stream: 42}}
faults:
  - {kind: delay, test: stream, rank: 1, seconds: 0.5}
)");
    const ProcessResult result = run_process({SHAKEDOWN_DRIVER, "run", "--dry-run", "--tests", "burn*,stre?m,mpi_ping*",
                                              "--config", config.string(), "--out", parent.string(), "--tag", "night"});
    ASSERT_EQ(result.exit_code, 0) << result.output;
    EXPECT_TRUE(holds(result.output, "nothing is started and nothing is written")) << result.output;
    EXPECT_TRUE(holds(result.output, "selection: --tests: 3 test(s)")) << result.output;
    EXPECT_TRUE(holds(result.output, "  1. burnin  deadline 1200 s, expected 7 s (parameter duration_s)")) << result.output;
    EXPECT_TRUE(holds(result.output, "duration_s=7 ")) << result.output;
    EXPECT_TRUE(holds(result.output, "  2. stream  deadline 42 s, expected: unknown")) << result.output;
    EXPECT_TRUE(holds(result.output, "  3. mpi_pingpong  deadline")) << result.output;
    EXPECT_TRUE(holds(result.output, "[needs at least 2 ranks]")) << result.output;
    EXPECT_TRUE(holds(result.output, "planted fault: delay on stream at rank 1, 0.5 s (")) << result.output;
    EXPECT_TRUE(holds(result.output, "-night is named now")) << result.output;
    EXPECT_TRUE(holds(result.output, "expected time: 7 s from the 1 test(s) of known length; 2 test(s) of unknown length"))
        << result.output;
    EXPECT_FALSE(std::filesystem::exists(parent)) << "a dry run made the output folder";
}

// A named folder that exists would be refused by the run: the plan says so, and leaves it as it is.
TEST(DryRun, SaysANamedFolderThatExistsWouldBeRefused) {
    const ScratchFolder scratch("dry-run-exists");
    std::filesystem::create_directories(scratch.path() / "kept");
    const auto marker = scratch.write("kept/marker", "kept");
    const ProcessResult result = run_process({SHAKEDOWN_DRIVER, "run", "--dry-run", "--tests", "topology", "--out",
                                              scratch.path().string(), "--name", "kept"});
    ASSERT_EQ(result.exit_code, 0) << result.output;
    EXPECT_TRUE(holds(result.output, "kept (exists already: the run would be refused)")) << result.output;
    EXPECT_TRUE(std::filesystem::exists(marker));
}

// Bad input is refused by a dry run as by the run itself: one line, exit 2.
TEST(DryRun, RefusesWhatTheRunWouldRefuse) {
    const ProcessResult unknown = run_process({SHAKEDOWN_DRIVER, "run", "--dry-run", "--tests", "gpu_z*"});
    EXPECT_EQ(unknown.exit_code, 2) << unknown.output;
    EXPECT_EQ(count_lines(unknown.output), 1u) << unknown.output;
    EXPECT_TRUE(holds(unknown.output, "shakedown: pattern 'gpu_z*' matches no test (known: ")) << unknown.output;
    const ProcessResult excluded = run_process({SHAKEDOWN_DRIVER, "run", "--dry-run", "--suite", "quick", "--exclude", "*"});
    EXPECT_EQ(excluded.exit_code, 2) << excluded.output;
    EXPECT_TRUE(holds(excluded.output, "nothing to run")) << excluded.output;
}

}  // namespace
}  // namespace shakedown::testing
