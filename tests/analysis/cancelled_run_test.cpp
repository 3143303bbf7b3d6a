// A job cancelled by scancel, its time limit or the job script's trap: every unfinished rank
// recorded the signal that ended it. The run says "cancelled" (the verdict line, the first
// incomplete line, summary.json's problem "cancelled"), the tests that finished are judged and
// nothing drains; a rank that died without a word, or one its watchdog stopped, is not a cancel.
#include "analysis/load/observations.hpp"
#include "analysis/load/run_loader.hpp"
#include "analysis/report/drain_output.hpp"
#include "analysis/rules/figures/threshold_rule.hpp"
#include "analysis/rules/model/verdicts.hpp"
#include "analysis_fixtures.hpp"

#include <gtest/gtest.h>

namespace shakedown::analysis {
namespace {

using testing::TempDir;

std::vector<Trace> signalled(int ranks) {
    auto traces = testing::healthy_traces(ranks, 1);
    for (Trace& trace : traces) {
        trace.status = TraceStatus::aborted;
        trace.end_utc = 1764480010.0;
        trace.stalled = StalledAt{{"p2p", "round 2 of 3", {}}, stalled_by_signal, 0.0};
    }
    return traces;
}

LoadedRun load(const TempDir& temp, const std::vector<Trace>& traces) {
    return load_run(testing::write_run(temp.path() / "run", traces, "aborted", {"stream", "mpi_pingpong", "p2p"}), {});
}

TEST(CancelledRun, EveryRankEndedByASignalIsACancelledRunAndNothingDrains) {
    TempDir temp;
    const LoadedRun run = load(temp, signalled(3));
    ASSERT_TRUE(run.cancelled);
    // The first rank's last event in the brackets (as the run folder writer records it).
    EXPECT_TRUE(run.cancelled->starts_with("cancelled: 3 of 3 rank(s) ended by a signal they recorded (")) << *run.cancelled;
    EXPECT_TRUE(run.cancelled->ends_with("): scancel, the job's time limit or the job script's trap; the tests that "
                                         "finished are judged, nothing drains for what did not run"))
        << *run.cancelled;
    ASSERT_FALSE(run.run_problems.empty());
    EXPECT_EQ(run.run_problems.front(), *run.cancelled);
    const Observations observations(run);
    const Judgement judgement = judge(observations, test_status_findings(observations));
    EXPECT_EQ(judgement.overall, Verdict::incomplete);
    EXPECT_EQ(judgement.exit_code(), 3);
    EXPECT_TRUE(drain_list(judgement).requests.empty());
    EXPECT_EQ(judgement.tests.passed, 6);  // stream and mpi_pingpong finished on each of 3 ranks: judged
}

TEST(CancelledRun, ARankThatDiedWithoutAWordIsNotACancel) {
    TempDir temp;
    auto traces = signalled(3);
    traces[1].status = TraceStatus::running;  // killed outright: its trace never finished
    traces[1].stalled.reset();
    EXPECT_FALSE(load(temp, traces).cancelled);
}

TEST(CancelledRun, ARankItsWatchdogStoppedIsNotACancel) {
    TempDir temp;
    auto traces = signalled(3);
    traces[2].stalled->noticed_by = stalled_by_watchdog;
    EXPECT_FALSE(load(temp, traces).cancelled);
}

TEST(CancelledRun, AFinishedRunIsNotACancel) {
    TempDir temp;
    const auto dir = testing::write_run(temp.path() / "run", testing::healthy_traces(2, 1), "complete");
    EXPECT_FALSE(load_run(dir, {}).cancelled);
}

}  // namespace
}  // namespace shakedown::analysis
