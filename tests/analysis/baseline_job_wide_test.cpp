// The baseline compares job-wide metrics (declared MetricScope::job: collectives' bandwidth and
// latency) once for the run, never node by node: one slow node in a collective lowers every
// rank's figure, and a per-node comparison turned the healthy nodes WARN.
#include "analysis/load/observations.hpp"
#include "analysis/rules/figures/baseline.hpp"
#include "analysis_outcome.hpp"

#include <gtest/gtest.h>

#include <set>

namespace shakedown::analysis::testing {
namespace {

bench::SyntheticRunSpec collective_run(std::uint64_t seed, std::string run_id) {
    return {.ranks = 16, .ranks_per_node = 4, .tests = {"stream", "mpi_pingpong", "nccl", "mpi_coll"}, .seed = seed,
            .run_id = std::move(run_id)};
}

std::size_t occurrences(const std::string& text, const std::string& what) {
    std::size_t count = 0;
    for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++count;
    return count;
}

TEST(BaselineJobWide, CollectiveMetricsAreDeclaredJobWideAndRankFiguresAreNot) {
    EXPECT_TRUE(is_job_wide("nccl", "nccl.all_reduce_busbw_gbs"));
    EXPECT_TRUE(is_job_wide("mpi_coll", "mpi_coll.allreduce_busbw_gbs"));
    EXPECT_TRUE(is_job_wide("mpi_coll", "mpi_coll.barrier_us"));
    EXPECT_TRUE(is_job_wide("congestion", "congestion.bandwidth_impact"));
    EXPECT_FALSE(is_job_wide("congestion", "congestion.node_bandwidth_impact"));
    EXPECT_FALSE(is_job_wide("mpi_coll", "mpi_coll.rank_time_ratio"));
    EXPECT_FALSE(is_job_wide("stream", "stream.triad_gbs"));
    EXPECT_FALSE(is_job_wide("no_such_test", "no_such_test.x"));
}

// The rule alone, on the synthetic traces in memory: what the baseline itself says.
LoadedRun synthetic_loaded(const bench::SyntheticRunSpec& spec) {
    std::vector<Trace> traces;
    for (int rank = 0; rank < spec.ranks; ++rank) traces.push_back(bench::make_synthetic_trace(spec, rank));
    return loaded_run(traces);
}

TEST(BaselineJobWide, TheRuleComparesJobWideMetricsOnceAndFindsOnlyTheSlowNodesOwnFigures) {
    auto slow = collective_run(2, "slow-node-run");
    slow.slow_node = 2;
    const LoadedRun before_run = synthetic_loaded(collective_run(1, "baseline-run"));
    const LoadedRun after_run = synthetic_loaded(slow);
    const LoadedRun healthy_run = synthetic_loaded(collective_run(3, "healthy-rerun"));
    const Observations before(before_run);
    const Observations after(after_run);
    const Observations healthy(healthy_run);

    const BaselineComparison comparison = compare_with_baseline(after, before, AnalysisSettings{});
    ASSERT_FALSE(comparison.findings.empty());
    for (const Finding& finding : comparison.findings) {
        EXPECT_EQ(finding.node, "node0002") << finding.reason;
        EXPECT_FALSE(is_job_wide(finding.test, finding.metric)) << finding.reason;
    }
    EXPECT_EQ(comparison.regressions, static_cast<int>(comparison.findings.size()));
    EXPECT_EQ(comparison.job_wide_compared, 11);  // 7 nccl + 4 mpi_coll (slowest_rank names a rank: not compared)
    std::set<std::string> metrics;
    for (const RunRegression& regression : comparison.run_regressions) {
        EXPECT_TRUE(metrics.insert(regression.metric).second) << "twice: " << regression.reason;
        EXPECT_EQ(regression.level, Level::warn);
        EXPECT_NE(regression.reason.find("compared once for the run"), std::string::npos) << regression.reason;
    }
    EXPECT_TRUE(metrics.count("nccl.all_reduce_busbw_gbs"));
    EXPECT_TRUE(metrics.count("nccl.all_reduce_latency_us"));
    EXPECT_TRUE(metrics.count("mpi_coll.barrier_us"));
    for (const RunRegression& regression : comparison.run_regressions)
        if (regression.metric == "nccl.all_reduce_busbw_gbs") {
            EXPECT_EQ(regression.ranks, 16);
            EXPECT_NEAR(regression.value / regression.baseline, 0.5, 0.03);
            EXPECT_NEAR(regression.bound, regression.baseline * 0.9, 1e-9);
        }

    const BaselineComparison rerun = compare_with_baseline(healthy, before, AnalysisSettings{});
    EXPECT_TRUE(rerun.findings.empty());
    EXPECT_TRUE(rerun.run_regressions.empty());
    EXPECT_EQ(rerun.job_wide_compared, 11);
    EXPECT_GT(rerun.compared, 0);
}

TEST(BaselineJobWide, OneSlowNodeInACollectiveGivesOneRunLevelLinePerMetricAndNoHealthyNodeWarns) {
    TempDir temp;
    const auto before = synthetic_run(temp, "before", collective_run(1, "baseline-run"));
    auto slow = collective_run(2, "slow-node-run");
    slow.slow_node = 2;
    const auto after = synthetic_run(temp, "after", slow);
    const AnalysisOutcome analysis = analyze_in_process({.run_dir = after, .baseline_dir = before});
    ASSERT_FALSE(analysis.summary.is_null()) << analysis.err;

    // No healthy node carries a baseline finding; the slow node does (its own stream and ping-pong).
    int slow_node_regressions = 0;
    for (const auto& finding : findings_of(analysis)) {
        if (finding["source"] != "baseline") continue;
        EXPECT_EQ(finding["node"], "node0002") << finding.dump();
        EXPECT_FALSE(is_job_wide(finding["test"], finding["metric"])) << finding.dump();
        ++slow_node_regressions;
    }
    EXPECT_GT(slow_node_regressions, 0);
    for (const char* node : {"node0000", "node0001", "node0003"})
        for (const auto& finding : findings_of(analysis, node))
            EXPECT_NE(finding["source"], "baseline") << node << ": " << finding.dump();

    // The collectives' figures halved: each job-wide metric regressed once, at run level.
    const auto& regressions = analysis.summary["baseline"]["run_regressions"];
    ASSERT_TRUE(regressions.is_array());
    std::set<std::string> metrics;
    for (const auto& regression : regressions) {
        EXPECT_TRUE(metrics.insert(regression["metric"].get<std::string>()).second) << "twice: " << regression.dump();
        EXPECT_TRUE(is_job_wide(regression["test"], regression["metric"])) << regression.dump();
        EXPECT_GE(regression["ranks"].get<int>(), 1) << regression.dump();
    }
    ASSERT_TRUE(metrics.count("nccl.all_reduce_busbw_gbs")) << regressions.dump();
    ASSERT_TRUE(metrics.count("mpi_coll.allreduce_busbw_gbs")) << regressions.dump();
    for (const auto& regression : regressions)
        if (regression["metric"] == "nccl.all_reduce_busbw_gbs") {
            EXPECT_NEAR(regression["value"].get<double>() / regression["reference"].get<double>(), 0.5, 0.03);
            EXPECT_EQ(regression["level"], "warn");
            EXPECT_EQ(regression["ranks"], 16);  // every rank records it
        }
    EXPECT_EQ(analysis.summary["baseline"]["job_wide_compared"].get<int>(), 11);  // 7 nccl + 4 mpi_coll (slowest_rank names a rank: not compared)
    // The terminal prints the run-level line once, not once per rank or node.
    EXPECT_EQ(occurrences(analysis.out, "run level: nccl.all_reduce_busbw_gbs "), 1u) << analysis.out;
    EXPECT_EQ(occurrences(analysis.out, "run level: mpi_coll.allreduce_busbw_gbs "), 1u) << analysis.out;
}

TEST(BaselineJobWide, AHealthyRerunGivesNoBaselineFinding) {
    TempDir temp;
    const auto before = synthetic_run(temp, "before", collective_run(1, "baseline-run"));
    const auto after = synthetic_run(temp, "after", collective_run(3, "healthy-rerun"));
    const AnalysisOutcome analysis = analyze_in_process({.run_dir = after, .baseline_dir = before});
    ASSERT_FALSE(analysis.summary.is_null()) << analysis.err;
    for (const auto& finding : findings_of(analysis)) EXPECT_NE(finding["source"], "baseline") << finding.dump();
    EXPECT_EQ(analysis.summary["baseline"]["regressions"], 0);
    EXPECT_TRUE(analysis.summary["baseline"]["run_regressions"].empty());
    EXPECT_EQ(analysis.summary["baseline"]["job_wide_compared"].get<int>(), 11);
    EXPECT_GT(analysis.summary["baseline"]["compared"].get<int>(), 0);
    EXPECT_EQ(analysis.out.find("run level:"), std::string::npos) << analysis.out;
}

}  // namespace
}  // namespace shakedown::analysis::testing
