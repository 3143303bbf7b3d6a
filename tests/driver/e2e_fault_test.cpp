// A rank that dies or hangs must end the whole job promptly, keep the other ranks' finished
// tests readable, and make the analyzer call the run incomplete, naming the rank.
#include "e2e_support.hpp"
#include "core/session.hpp"
#include "trace/trace_reader.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <iterator>

namespace shakedown::testing {
namespace {

TEST(EndToEndFaults, KilledRankEndsTheJobAndTheAnalyzerNamesIt) {
    const ScratchFolder scratch("abort");
    const auto config = scratch.write(
        "abort.yaml", small_params + "watchdog: {deadline_s: 20, grace_s: 5}\n"
                                     "faults: [{kind: abort, test: mpi_pingpong, rank: 1}]\n");
    const auto run = run_process(mpirun(2, {SHAKEDOWN_DRIVER, "run", "--tests", "stream,mpi_pingpong", "--config",
                                            config.string(), "--out", scratch.path().string(), "--name", "killed"}));
    EXPECT_NE(run.exit_code, 0) << run.output;
    EXPECT_LT(run.seconds, 20.0 + 5.0 + 10.0) << "the job outlived the deadline plus grace";

    const auto folder = scratch.path() / "killed";
    for (int rank : {0, 1}) {
        const Trace trace = read_trace(folder / trace_relative_path(rank));
        EXPECT_NE(trace.status, TraceStatus::complete);
        ASSERT_GE(trace.tests.size(), 1u) << "rank " << rank << " lost its finished test";
        EXPECT_EQ(trace.tests[0].key, "stream");
        EXPECT_EQ(trace.tests[0].status, Status::pass);
    }
    const auto analysis = run_process({SHAKEDOWN_ANALYZER, folder.string()});
    EXPECT_EQ(analysis.exit_code, 3) << analysis.output;
    EXPECT_NE(analysis.output.find("rank 1"), std::string::npos) << analysis.output;
}

TEST(EndToEndFaults, HungRankIsEndedByTheWatchdogWithinDeadlinePlusGrace) {
    const ScratchFolder scratch("hang");
    const double deadline = 4.0;
    const double grace = 3.0;
    const auto config = scratch.write(
        "hang.yaml", small_params + fmt::format("watchdog: {{grace_s: {}, deadlines: {{mpi_pingpong: {}}}}}\n", grace,
                                                deadline) +
                         "faults: [{kind: hang, test: mpi_pingpong, rank: 1}]\n");
    const auto run = run_process(mpirun(2, {SHAKEDOWN_DRIVER, "run", "--tests", "stream,mpi_pingpong", "--config",
                                            config.string(), "--out", scratch.path().string(), "--name", "hung"}));
    EXPECT_NE(run.exit_code, 0) << run.output;
    EXPECT_NE(run.output.find("watchdog: test 'mpi_pingpong' passed its 4 s deadline on rank"), std::string::npos)
        << run.output;
    // Start-up and the first test take a few seconds on this machine; the hang itself must
    // cost no more than deadline + grace.
    EXPECT_LT(run.seconds, deadline + grace + 15.0) << run.output;

    const auto folder = scratch.path() / "hung";
    const Trace hung = read_trace(folder / trace_relative_path(1));
    EXPECT_EQ(hung.status, TraceStatus::aborted);
    // The watchdog's event comes first; the launcher's SIGTERM that follows MPI_Abort may add one.
    EXPECT_TRUE(std::any_of(hung.events.begin(), hung.events.end(), [](const Event& event) {
        return event.text.find("watchdog: test 'mpi_pingpong'") != std::string::npos;
    })) << "no watchdog event among " << hung.events.size();
    EXPECT_EQ(hung.tests.at(0).status, Status::pass);

    const auto analysis = run_process({SHAKEDOWN_ANALYZER, folder.string()});
    EXPECT_EQ(analysis.exit_code, 3) << analysis.output;
    EXPECT_NE(analysis.output.find("rank 1"), std::string::npos) << analysis.output;
    // Both watchdogs spoke; rank 0 waited for rank 1, which waited for no one: rank 1 hung.
    EXPECT_NE(analysis.output.find("rank 1 stopped progressing in mpi_pingpong"), std::string::npos) << analysis.output;
}

// SIGSTOP freezes the whole process, its watchdog too: the other rank's watchdog ends the job,
// and the stopped rank (its watchdog woke only as the job ended) is the one named and drained.
TEST(EndToEndFaults, StoppedRankIsNamedByTheRankThatWaitedForIt) {
    const ScratchFolder scratch("stop");
    const auto config = scratch.write("stop.yaml", small_params + "watchdog: {grace_s: 3, deadlines: {mpi_pingpong: 4}}\n"
                                                                  "faults: [{kind: stop, test: mpi_pingpong, rank: 1}]\n");
    const auto run = run_process(mpirun(2, {SHAKEDOWN_DRIVER, "run", "--tests", "stream,mpi_pingpong", "--config",
                                            config.string(), "--out", scratch.path().string(), "--name", "stopped"}));
    EXPECT_NE(run.exit_code, 0) << run.output;
    EXPECT_LT(run.seconds, 4.0 + 3.0 + 15.0) << run.output;

    const auto folder = scratch.path() / "stopped";
    const Trace waiter = read_trace(folder / trace_relative_path(0));
    ASSERT_TRUE(waiter.stalled.has_value());
    EXPECT_EQ(waiter.stalled->noticed_by, stalled_by_watchdog);
    EXPECT_EQ(waiter.stalled->activity.test, "mpi_pingpong");
    const auto analysis = run_process({SHAKEDOWN_ANALYZER, folder.string()});
    EXPECT_EQ(analysis.exit_code, 3) << analysis.output;
    EXPECT_NE(analysis.output.find("rank 1 stopped progressing in mpi_pingpong"), std::string::npos) << analysis.output;
    std::ifstream drain(folder / "drain.txt");
    const std::string drained((std::istreambuf_iterator<char>(drain)), std::istreambuf_iterator<char>());
    EXPECT_NE(drained.find("NodeName=" + this_node_name()), std::string::npos) << drained;
}

// Stopped for 5 s and continued, well inside the deadline: the run completes and passes its
// tests, but the stopped rank's watchdog saw its process stand still: a WARN naming rank 1 and
// mpi_pingpong, nothing drained. Its twin without the fault has no such line.
TEST(EndToEndFaults, ARankStoppedForSecondsIsNamedWithTheTimeLost) {
    const ScratchFolder scratch("pause");
    const auto config = scratch.write("pause.yaml", small_params + "watchdog: {freeze_report_s: 2}\n"
                                                                   "faults: [{kind: stop, test: mpi_pingpong, rank: 1, "
                                                                   "seconds: 5}]\n");
    const auto run = run_process(mpirun(2, {SHAKEDOWN_DRIVER, "run", "--tests", "stream,mpi_pingpong", "--config",
                                            config.string(), "--out", scratch.path().string(), "--name", "paused"}));
    EXPECT_EQ(run.exit_code, 0) << run.output;
    const auto folder = scratch.path() / "paused";
    const Trace paused = read_trace(folder / trace_relative_path(1));
    EXPECT_EQ(paused.status, TraceStatus::complete);
    const TestResult& pingpong = paused.tests.at(1);
    ASSERT_TRUE(pingpong.parameters.count("frozen_s")) << "no freeze recorded on the stopped rank";
    EXPECT_GT(std::stod(pingpong.parameters.at("frozen_s")), 3.0);
    EXPECT_LT(std::stod(pingpong.parameters.at("frozen_s")), 7.0);
    EXPECT_FALSE(read_trace(folder / trace_relative_path(0)).tests.at(1).parameters.count("frozen_s"))
        << "the rank that waited ran all along";
    const auto analysis = run_process({SHAKEDOWN_ANALYZER, folder.string(), "--thresholds", scratch.write("rules.yaml", speed_rules_off).string()});
    EXPECT_EQ(analysis.exit_code, 0) << analysis.output;  // a WARN
    EXPECT_NE(analysis.output.find("rank 1 (" + this_node_name() + ") stood still for "), std::string::npos) << analysis.output;
    EXPECT_NE(analysis.output.find(" s in mpi_pingpong: the whole process did not run"), std::string::npos) << analysis.output;

    const auto healthy = run_process(mpirun(2, {SHAKEDOWN_DRIVER, "run", "--tests", "stream,mpi_pingpong", "--config",
                                                scratch.write("plain.yaml", small_params).string(), "--out",
                                                scratch.path().string(), "--name", "plain"}));
    ASSERT_EQ(healthy.exit_code, 0) << healthy.output;
    const auto plain = run_process({SHAKEDOWN_ANALYZER, (scratch.path() / "plain").string()});
    EXPECT_EQ(plain.output.find("stood still"), std::string::npos) << plain.output;
}

}  // namespace
}  // namespace shakedown::testing
