// A rank whose process stood still inside a test (the driver's frozen_s in the test's result):
// one WARN naming node, rank, test and seconds, nothing drained; the same node in two tests
// FAILs; a healthy twin without the record, or with a value that is not a number, is not flagged.
#include "analysis/load/observations.hpp"
#include "analysis/rules/health/freeze_rule.hpp"
#include "analysis/rules/model/verdicts.hpp"
#include "analysis_fixtures.hpp"
#include "core/driver_result_names.hpp"

#include <gtest/gtest.h>

namespace shakedown::analysis {
namespace {

std::vector<Finding> findings_of(const std::vector<Trace>& traces) {
    const LoadedRun run = testing::loaded_run(traces);
    return freeze_findings(Observations(run));
}

void freeze(Trace& trace, const std::string& test, const std::string& seconds) {
    testing::test_named(trace, test).parameters[std::string(driver_names::frozen_s)] = seconds;
    testing::test_named(trace, test).parameters[std::string(driver_names::freezes)] = "1";
}

TEST(FreezeRule, AFrozenRankIsAWarnNamingTheTimeLost) {
    auto traces = testing::healthy_traces(3, 1);
    freeze(traces[1], "mpi_pingpong", "14.800");
    const auto findings = findings_of(traces);
    ASSERT_EQ(findings.size(), 1u);
    EXPECT_EQ(findings[0].level, Level::warn);
    EXPECT_EQ(findings[0].node, "node0001");
    EXPECT_EQ(findings[0].test, "mpi_pingpong");
    EXPECT_EQ(findings[0].code, ReasonCode::rank_froze);
    EXPECT_EQ(findings[0].cause, Cause::hardware);
    EXPECT_EQ(findings[0].reason, "rank 1 (node0001) stood still for 14.8 s in mpi_pingpong: the whole process did not run "
                                  "(SIGSTOP, a paused VM, the node swapping); the test took 1.0 s");
}

TEST(FreezeRule, TheSameNodeInTwoTestsFailsAndDrains) {
    auto traces = testing::healthy_traces(3, 1);
    freeze(traces[2], "stream", "4.0");
    freeze(traces[2], "mpi_pingpong", "5.0");
    const LoadedRun run = testing::loaded_run(traces);
    const Observations observations(run);
    const auto findings = freeze_findings(observations);
    ASSERT_EQ(findings.size(), 2u);
    for (const Finding& finding : findings) {
        EXPECT_EQ(finding.level, Level::fail);
        EXPECT_NE(finding.reason.find("node0002 stood still in 2 tests of this run"), std::string::npos) << finding.reason;
    }
    const Judgement judgement = judge(observations, findings);
    EXPECT_EQ(judgement.nodes[2].verdict, Verdict::fail);
    EXPECT_EQ(judgement.nodes[0].verdict, Verdict::pass);
}

TEST(FreezeRule, HealthyRanksAndUnreadableRecordsAreNotFlagged) {
    auto traces = testing::healthy_traces(3, 1);
    EXPECT_TRUE(findings_of(traces).empty());
    freeze(traces[0], "stream", "not a number");
    freeze(traces[1], "stream", "0");
    EXPECT_TRUE(findings_of(traces).empty());
}

}  // namespace
}  // namespace shakedown::analysis
