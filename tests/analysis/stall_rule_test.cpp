// A hung or dead rank named: run folders written with the real TraceWriter, as the watchdog and
// the termination handler leave them. The rank that said nothing (or whose own watchdog woke
// late: frozen) while the others waited for it fails its node and drains it; the waiters' nodes
// are incomplete, never drained. A run without a watchdog record gets no stall finding.
#include "analysis/load/observations.hpp"
#include "analysis/load/run_loader.hpp"
#include "analysis/report/drain_output.hpp"
#include "analysis/rules/health/stall_rule.hpp"
#include "analysis/rules/model/verdicts.hpp"
#include "analysis_fixtures.hpp"

#include <gtest/gtest.h>

namespace shakedown::analysis {
namespace {

using testing::healthy_traces;
using testing::TempDir;

// Four ranks on four nodes in p2p; every rank but `stopped` ended by its watchdog, waiting as given.
std::vector<Trace> watchdog_ended(int stopped, const std::vector<std::vector<int>>& waiting_for) {
    auto traces = healthy_traces(4, 1);
    for (Trace& trace : traces) {
        const int rank = trace.header.rank;
        trace.status = TraceStatus::aborted;
        trace.end_utc = 1764480010.0;
        if (rank == stopped) {
            trace.status = TraceStatus::running;  // killed without a word: its trace was never finished
            continue;
        }
        trace.stalled = StalledAt{{"p2p", "round 2 of 3", waiting_for[static_cast<std::size_t>(rank)]}, stalled_by_watchdog, 0.01};
    }
    return traces;
}

struct Judged {
    std::vector<Finding> stalls;
    Judgement judgement;
};

Judged judge_folder(const TempDir& temp, const std::vector<Trace>& traces) {
    const auto dir = testing::write_run(temp.path() / "run", traces, "running", {"stream", "mpi_pingpong", "p2p"});
    const LoadedRun run = load_run(dir, {});
    const Observations observations(run);
    Judged judged{stall_findings(observations), {}};
    judged.judgement = judge(observations, judged.stalls);
    return judged;
}

std::vector<std::string> drained(const Judgement& judgement) {
    std::vector<std::string> nodes;
    for (const auto& request : drain_list(judgement).requests) nodes.push_back(request.node);
    return nodes;
}

TEST(StallRule, TheSilentRankTheOthersWaitedForIsNamedAndOnlyItsNodeDrains) {
    TempDir temp;
    const Judged judged = judge_folder(temp, watchdog_ended(2, {{2}, {}, {}, {2}}));
    ASSERT_EQ(judged.stalls.size(), 1u);
    EXPECT_EQ(judged.stalls[0].node, "node0002");
    EXPECT_EQ(judged.stalls[0].cause, Cause::hardware);
    EXPECT_EQ(judged.stalls[0].reason,
              "node0002 rank 2 stopped progressing in p2p (it left no record of where it stood); ranks 0,3 waited for it");
    EXPECT_EQ(drained(judged.judgement), std::vector<std::string>{"node0002"});
    EXPECT_EQ(judged.judgement.nodes[2].verdict, Verdict::fail);
    for (const int waiter : {0, 1, 3}) EXPECT_EQ(judged.judgement.nodes[static_cast<std::size_t>(waiter)].verdict, Verdict::incomplete);
}

TEST(StallRule, ARankWhoseOwnWatchdogWokeLateWasFrozenAndIsTheCulprit) {
    TempDir temp;
    auto traces = watchdog_ended(-1, {{1}, {}, {1}, {1}});
    traces[1].stalled->late_s = 2.4;  // SIGSTOPped: resumed only as the job ended
    const Judged judged = judge_folder(temp, traces);
    ASSERT_EQ(judged.stalls.size(), 1u);
    EXPECT_EQ(judged.stalls[0].rank, 1);
    EXPECT_EQ(judged.stalls[0].reason,
              "node0001 rank 1 stopped progressing in p2p (it was in p2p, round 2 of 3; frozen: its own watchdog woke 2 s "
              "late); ranks 0,2,3 waited for it");
    EXPECT_EQ(drained(judged.judgement), std::vector<std::string>{"node0001"});
}

TEST(StallRule, WhenEveryWatchdogFiredTheRankWaitedForThatWaitedForNoOneIsTheCulprit) {
    TempDir temp;
    auto traces = watchdog_ended(-1, {{3}, {3}, {3}, {}});  // rank 3 stuck in its own work (a driver call)
    const Judged judged = judge_folder(temp, traces);
    ASSERT_EQ(judged.stalls.size(), 1u);
    EXPECT_EQ(judged.stalls[0].rank, 3);
    EXPECT_EQ(drained(judged.judgement), std::vector<std::string>{"node0003"});
}

TEST(StallRule, AHealthyRunHasNoStallFinding) {
    TempDir temp;
    EXPECT_TRUE(judge_folder(temp, healthy_traces(4, 1)).stalls.empty());
}

TEST(StallRule, WithoutAWatchdogRecordTheOtherRulesSayWhatEndedTheJob) {
    TempDir temp;
    auto killed = healthy_traces(4, 1);
    killed[2].status = TraceStatus::running;  // a crashed rank: the missing-rank rules say it
    EXPECT_TRUE(judge_folder(temp, killed).stalls.empty());
}

}  // namespace
}  // namespace shakedown::analysis
