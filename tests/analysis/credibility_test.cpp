// A figure that cannot be physically true is an error, not a result: an intra-node link faster
// than the node's memory (host STREAM of the same run, its ranks summed) is "measurement not
// credible", software to fix, the node neither passed nor drained. A figure below the bound is
// not flagged; without a host STREAM there is no bound to judge by.
#include "analysis/load/observations.hpp"
#include "analysis/rules/figures/credibility_rule.hpp"
#include "analysis/rules/model/verdicts.hpp"
#include "analysis_fixtures.hpp"

#include <gtest/gtest.h>

namespace shakedown::analysis {
namespace {

using testing::healthy_traces;

// Two ranks on one node, each with a host STREAM best triad of 9 GB/s (the node: 18 GB/s), and
// rank 0's best intra-node allpairs link at `link_gbs`.
std::vector<Trace> node_with_link(double link_gbs, const std::string& stream_device = "host") {
    auto traces = healthy_traces(2, 2);
    for (Trace& trace : traces) {
        TestResult& stream = testing::test_named(trace, "stream");
        stream.parameters["device"] = stream_device;
        stream.metrics.push_back(Metric{"stream.triad_max_gbs", "GB/s", 9.0, std::nullopt, Better::higher});
        stream.metrics.push_back(Metric{"stream.copy_max_gbs", "GB/s", 8.0, std::nullopt, Better::higher});
    }
    TestResult allpairs;
    allpairs.key = "allpairs";
    allpairs.metrics.push_back(Metric{"allpairs.intra_node_bandwidth_max_gbs", "GB/s", link_gbs, std::nullopt, Better::higher});
    traces[0].tests.push_back(allpairs);
    return traces;
}

std::vector<Finding> findings_for(const std::vector<Trace>& traces) {
    const LoadedRun run = testing::loaded_run(traces);
    return credibility_findings(Observations(run));
}

TEST(Credibility, AnIntraNodeLinkFasterThanTheNodesMemoryIsNotCredible) {
    const auto findings = findings_for(node_with_link(1300.0));  // 4 ranks on 2 cores once gave 1.3 TB/s
    ASSERT_EQ(findings.size(), 1u);
    EXPECT_EQ(findings[0].level, Level::fail);
    EXPECT_EQ(findings[0].cause, Cause::software);
    EXPECT_EQ(findings[0].source, FindingSource::credibility);
    EXPECT_EQ(findings[0].reason,
              "measurement not credible: allpairs.intra_node_bandwidth_max_gbs 1300 GB/s is above node0000's memory "
              "bandwidth 18 GB/s (host STREAM, this run): a transfer within a node cannot outrun its memory");
}

TEST(Credibility, ANotCredibleFigureIsAnErrorToFixNeverADrain) {
    const auto traces = node_with_link(1300.0);
    const LoadedRun run = testing::loaded_run(traces);
    const Observations observations(run);
    const Judgement judgement = judge(observations, credibility_findings(observations));
    EXPECT_EQ(judgement.nodes[0].verdict, Verdict::incomplete);
    EXPECT_EQ(judgement.exit_code(), 2);
    EXPECT_EQ(judgement.to_fix().size(), 1u);
}

TEST(Credibility, ALinkBelowTheNodesMemoryIsNotFlagged) {
    EXPECT_TRUE(findings_for(node_with_link(13.0)).empty());  // OSU's 1 MiB figure here: 13 GB/s of STREAM's 18
}

TEST(Credibility, WithoutAHostStreamThereIsNoBound) {
    EXPECT_TRUE(findings_for(node_with_link(1300.0, "gpu")).empty());  // GPU STREAM measures HBM, not the host
}

// Rank 0's best inter-node link at `link_gbs`, with the node's network capacity (its nominal,
// as allpairs records it) `capacity_gbs`.
std::vector<Trace> nodes_with_inter_node_link(double link_gbs, std::optional<double> capacity_gbs) {
    auto traces = healthy_traces(2, 1);
    TestResult allpairs;
    allpairs.key = "allpairs";
    allpairs.metrics.push_back(Metric{"allpairs.inter_node_bandwidth_max_gbs", "GB/s", link_gbs, capacity_gbs, Better::higher});
    traces[0].tests.push_back(allpairs);
    return traces;
}

TEST(Credibility, AnInterNodeLinkFasterThanTheNodesNetworkIsNotCredible) {
    // One 100 Gb/s port (12.5 GB/s): 40 GB/s between two nodes cannot be.
    const auto findings = findings_for(nodes_with_inter_node_link(40.0, 12.5));
    ASSERT_EQ(findings.size(), 1u);
    EXPECT_EQ(findings[0].cause, Cause::software);
    EXPECT_EQ(findings[0].reason,
              "measurement not credible: allpairs.inter_node_bandwidth_max_gbs 40 GB/s is above node0000's network "
              "capacity 12.5 GB/s (its physical interfaces' and RDMA ports' line rates): a transfer between nodes "
              "cannot outrun them");
}

TEST(Credibility, AnInterNodeLinkAtItsLineRateOrWithoutOneIsNotFlagged) {
    EXPECT_TRUE(findings_for(nodes_with_inter_node_link(12.2, 12.5)).empty());   // 98 % of line rate
    EXPECT_TRUE(findings_for(nodes_with_inter_node_link(12.9, 12.5)).empty());   // within the timing tolerance
    EXPECT_TRUE(findings_for(nodes_with_inter_node_link(40.0, std::nullopt)).empty());  // veth: capacity unknown
}

// A figure its declaration bounds by its nominal (cg_fp64's fraction of the bandwidth bound measured
// in the same test): 1.18 of the bound on a host's CPU ranks cannot be; up to 1.05 is timing.
std::vector<Trace> cg_bound_fraction(double fraction) {
    auto traces = healthy_traces(2, 2);
    TestResult cg;
    cg.key = "cg_fp64";
    cg.metrics.push_back(Metric{"cg_fp64.bandwidth_bound_fraction", "fraction", fraction, 1.0, Better::higher});
    traces[1].tests.push_back(cg);
    return traces;
}

TEST(Credibility, AFigureAboveTheBoundItsDeclarationNamesIsNotCredible) {
    const auto findings = findings_for(cg_bound_fraction(1.18));
    ASSERT_EQ(findings.size(), 1u);
    EXPECT_EQ(findings[0].rank, 1);
    EXPECT_EQ(findings[0].cause, Cause::software);
    EXPECT_EQ(findings[0].code, ReasonCode::not_credible);
    EXPECT_DOUBLE_EQ(*findings[0].bound, 1.05);
    EXPECT_EQ(findings[0].reason,
              "measurement not credible: cg_fp64.bandwidth_bound_fraction 1.18 is above its physical bound 1 (x1.05 "
              "allowed for timing): the bound or the measurement is wrong (a bound measured at another size, a working "
              "set the caches hold)");
}

TEST(Credibility, AFigureAtItsDeclaredBoundOrUndeclaredIsNotFlagged) {
    EXPECT_TRUE(findings_for(cg_bound_fraction(0.89)).empty());
    EXPECT_TRUE(findings_for(cg_bound_fraction(1.035)).empty());  // the H100's full-suite figure: within timing
    // A metric above its nominal that no declaration bounds (a nominal that is a datasheet figure) is
    // the thresholds' nominal_not_credible, not this rule.
    auto traces = healthy_traces(2, 2);
    testing::metric_named(traces[0], "stream.triad_gbs").value = 20.0;  // nominal 7.9
    EXPECT_TRUE(findings_for(traces).empty());
}

}  // namespace
}  // namespace shakedown::analysis
