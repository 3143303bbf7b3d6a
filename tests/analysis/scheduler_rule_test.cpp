// A node Slurm marked down during the job (slurm_nodes.txt in the run folder, as the job script
// writes it) is named in the verdict and drained; a node Slurm holds usable, or only drained, is
// not flagged; a run without the file (not a Slurm job) gets no scheduler finding.
#include "analysis/load/observations.hpp"
#include "analysis/load/run_loader.hpp"
#include "analysis/report/drain_output.hpp"
#include "analysis/rules/health/scheduler_rule.hpp"
#include "analysis/rules/model/verdicts.hpp"
#include "analysis_fixtures.hpp"

#include <gtest/gtest.h>

#include <fstream>

namespace shakedown::analysis {
namespace {

using testing::healthy_traces;
using testing::TempDir;

std::vector<Finding> findings_with(const TempDir& temp, const std::string& slurm_nodes_text, Judgement* judgement = nullptr) {
    auto traces = healthy_traces(3, 1);
    traces[2].status = TraceStatus::running;  // node0002's rank never finished: its node died
    const auto dir = testing::write_run(temp.path() / "run", traces, "running");
    if (!slurm_nodes_text.empty()) std::ofstream(dir / "slurm_nodes.txt") << slurm_nodes_text;
    const LoadedRun run = load_run(dir, {});
    const Observations observations(run);
    std::vector<Finding> findings = scheduler_findings(observations);
    if (judgement != nullptr) *judgement = judge(observations, findings);
    return findings;
}

TEST(SchedulerRule, ANodeSlurmMarkedDownIsNamedAndDrained) {
    TempDir temp;
    Judgement judgement;
    const auto findings = findings_with(temp,
                                        "# shakedown slurm_nodes v1\n"
                                        "node0000 allocated none\n"
                                        "node0001 allocated none\n"
                                        "node0002 down* Not responding\n",
                                        &judgement);
    ASSERT_EQ(findings.size(), 1u);
    EXPECT_EQ(findings[0].node, "node0002");
    EXPECT_EQ(findings[0].cause, Cause::hardware);
    EXPECT_EQ(findings[0].reason, "Slurm marked node0002 down* during the job (Not responding)");
    const DrainList drain = drain_list(judgement);
    ASSERT_EQ(drain.requests.size(), 1u);
    EXPECT_EQ(drain.requests[0].node, "node0002");
    EXPECT_EQ(judgement.exit_code(), 3);  // still an incomplete run
}

TEST(SchedulerRule, UsableOrOnlyDrainedNodesAreNotFlagged) {
    TempDir temp;
    EXPECT_TRUE(findings_with(temp, "node0000 allocated none\nnode0001 allocated+drain maintenance\nnode0002 mixed none\n").empty());
    EXPECT_TRUE(scheduler_lost_node("idle+fail"));
    EXPECT_TRUE(scheduler_lost_node("allocated*"));
    EXPECT_FALSE(scheduler_lost_node("draining"));
}

TEST(SchedulerRule, WithoutTheFileThereIsNoSchedulerFinding) {
    TempDir temp;
    EXPECT_TRUE(findings_with(temp, "").empty());
}

}  // namespace
}  // namespace shakedown::analysis
