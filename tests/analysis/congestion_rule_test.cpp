// The congestion rule over run folders written with the real TraceWriter: 4 nodes of 2 ranks,
// each node's local rank 0 measuring (it carries the node's impact factors), rank 0 the job's.
// A node whose links degrade under load is named and FAILs (or WARNs) with the others ranked
// beside it; the healthy factors measured here on 4 oversubscribed ranks flag nothing; a fabric
// that degrades evenly is one configuration finding, nothing drained.
#include "analysis/load/observations.hpp"
#include "analysis/load/run_loader.hpp"
#include "analysis/rules/congestion_rule.hpp"
#include "analysis/rules/thresholds.hpp"
#include "analysis_fixtures.hpp"

#include <gtest/gtest.h>

#include <array>

namespace shakedown::analysis {
namespace {

using testing::TempDir;

constexpr int ranks_per_node = 2;
constexpr int node_count = 4;

Metric ratio(const std::string& name, double value) { return Metric{name, "ratio", value, std::nullopt, Better::lower}; }

// `node_impacts[n]`: node n's p50 latency, p99 latency and bandwidth impact factors; `job`: rank 0's.
std::vector<Trace> congestion_traces(const std::array<std::array<double, 3>, node_count>& node_impacts,
                                     const std::array<double, 3>& job) {
    auto traces = testing::healthy_traces(node_count * ranks_per_node, ranks_per_node);
    for (Trace& trace : traces) {
        TestResult test;
        test.key = "congestion";
        test.status = Status::pass;
        test.parameters = {{"communicator_ranks", "8"}, {"measuring_ranks", "4"}};
        const int rank = trace.header.rank;
        if (rank % ranks_per_node == 0) {
            const auto& impacts = node_impacts[static_cast<std::size_t>(rank / ranks_per_node)];
            test.metrics.push_back(ratio("congestion.node_latency_p50_impact", impacts[0]));
            test.metrics.push_back(ratio("congestion.node_latency_p99_impact", impacts[1]));
            test.metrics.push_back(ratio("congestion.node_bandwidth_impact", impacts[2]));
        }
        if (rank == 0) {
            test.metrics.push_back(ratio("congestion.latency_p50_impact", job[0]));
            test.metrics.push_back(ratio("congestion.latency_p99_impact", job[1]));
            test.metrics.push_back(ratio("congestion.bandwidth_impact", job[2]));
        }
        trace.tests.push_back(std::move(test));
    }
    return traces;
}

std::vector<Finding> findings_of(const std::vector<Trace>& traces, const Thresholds& thresholds = Thresholds::built_in()) {
    TempDir temp;
    const auto dir = testing::write_run(temp.path() / "run", traces, "complete", {"stream", "mpi_pingpong", "congestion", "congestion_nccl"});
    const LoadedRun run = load_run(dir, {});
    const Observations observations(run);
    return congestion_findings(observations, thresholds.settings());
}

TEST(CongestionRule, TheNodeWhoseLinksDegradeUnderLoadFailsAndIsNamedFirst) {
    const auto findings = findings_of(congestion_traces({{{1.1, 1.6, 1.0}, {1.2, 1.9, 1.1}, {14.2, 40.0, 3.5}, {1.0, 1.3, 1.0}}},
                                                        {1.2, 1.8, 1.1}));
    ASSERT_EQ(findings.size(), 1u);
    const Finding& f = findings[0];
    EXPECT_EQ(f.node, "node0002");
    EXPECT_EQ(f.rank, 4);
    EXPECT_EQ(f.level, Level::fail);
    EXPECT_EQ(f.cause, Cause::hardware);
    EXPECT_EQ(f.evidence, Evidence::figure);  // re-measured before it drains
    EXPECT_EQ(f.code, ReasonCode::congestion_impact);
    ASSERT_TRUE(f.bound.has_value());
    EXPECT_DOUBLE_EQ(*f.bound, 10.0);  // the fail edge it crossed
    EXPECT_TRUE(f.needs_confirmation());
    EXPECT_EQ(f.metric, "congestion.node_latency_p50_impact");  // its worst judged statistic (p99: shown only)
    EXPECT_DOUBLE_EQ(*f.value, 14.2);
    EXPECT_EQ(f.reason,
              "node0002's links degrade under load: its p50 ring latency is 14.2x worse beside the congestors than alone "
              "(warn from 4x, fail from 10x); the most degraded nodes: node0002 14.2x (p50 ring latency), node0001 1.2x "
              "(p50 ring latency), node0000 1.1x (p50 ring latency) and 1 more");
}

TEST(CongestionRule, AnImpactBetweenTheBandsWarnsAndBandwidthCounts) {
    const auto findings = findings_of(congestion_traces({{{1.1, 1.6, 1.0}, {1.2, 1.9, 4.5}, {1.1, 1.5, 1.0}, {1.0, 1.3, 1.0}}},
                                                        {1.2, 1.8, 1.1}));
    ASSERT_EQ(findings.size(), 1u);
    EXPECT_EQ(findings[0].node, "node0001");
    EXPECT_EQ(findings[0].level, Level::warn);
    EXPECT_EQ(findings[0].metric, "congestion.node_bandwidth_impact");
    ASSERT_TRUE(findings[0].bound.has_value());
    EXPECT_DOUBLE_EQ(*findings[0].bound, 4.0);  // the warn edge
}

// The highest factors four ranks on this 2-core machine gave in 25 healthy runs (docs/analyzer.md):
// the congestors share the measuring ranks' cores, the p99 swings wildly, and still nothing is flagged.
TEST(CongestionRule, HealthyFactorsOfAnOversubscribedMachineAreNotFlagged) {
    const std::array<double, 3> loaded_machine{3.12, 430.0, 2.81};
    EXPECT_TRUE(findings_of(congestion_traces({loaded_machine, loaded_machine, loaded_machine, loaded_machine}, loaded_machine))
                    .empty());
}

TEST(CongestionRule, AFabricThatDegradesEvenlyIsOneConfigurationFindingAndDrainsNothing) {
    const std::array<double, 3> node{3.5, 2.8, 2.0};  // no node beyond the WARN band ...
    const auto findings = findings_of(congestion_traces({node, node, node, node}, {4.4, 2.9, 2.2}));  // ... the job is
    ASSERT_EQ(findings.size(), 1u);
    EXPECT_EQ(findings[0].rank, 0);
    EXPECT_EQ(findings[0].level, Level::warn);
    EXPECT_EQ(findings[0].cause, Cause::configuration);
    EXPECT_FALSE(findings[0].drains());
    EXPECT_EQ(findings[0].metric, "congestion.latency_p50_impact");
    EXPECT_NE(findings[0].reason.find("the fabric as a whole degrades under load: the p50 ring latency of the 4 measuring "
                                      "ranks (of 8) is 4.4x worse"),
              std::string::npos)
        << findings[0].reason;
}

TEST(CongestionRule, TheNcclVariantIsJudgedUnderItsOwnKey) {
    auto traces = congestion_traces({{{1.1, 1.6, 1.0}, {1.2, 1.9, 1.1}, {1.1, 1.5, 1.0}, {1.0, 1.3, 1.0}}}, {1.2, 1.8, 1.1});
    for (Trace& trace : traces) {
        TestResult nccl = trace.tests.back();  // the same figures under congestion_nccl, node0003's bandwidth 12x
        nccl.key = "congestion_nccl";
        for (Metric& metric : nccl.metrics) {
            metric.name.replace(0, std::string("congestion").size(), "congestion_nccl");
            if (trace.header.rank == 6 && metric.name == "congestion_nccl.node_bandwidth_impact") metric.value = 12.0;
        }
        trace.tests.push_back(std::move(nccl));
    }
    const auto findings = findings_of(traces);
    ASSERT_EQ(findings.size(), 1u);
    EXPECT_EQ(findings[0].test, "congestion_nccl");
    EXPECT_EQ(findings[0].node, "node0003");
    EXPECT_EQ(findings[0].metric, "congestion_nccl.node_bandwidth_impact");
    EXPECT_EQ(findings[0].level, Level::fail);
}

TEST(CongestionRule, BandsComeFromTheThresholdsFileAndBadValuesAreRefused) {
    const auto strict = Thresholds::built_in().overridden_by(
        Thresholds::parse("metrics: {}\ncongestion: {warn_impact: 1.5, fail_impact: 1.8}\n", "user.yaml"));
    const std::array<double, 3> node{1.6, 1.2, 1.0};
    const auto findings = findings_of(congestion_traces({node, node, node, node}, node), strict);
    ASSERT_EQ(findings.size(), 4u);  // every node
    EXPECT_EQ(findings[0].level, Level::warn);
    for (const char* bad : {"congestion: {warn_impact: -1}\n", "congestion: {warn: 3}\n"}) {
        try {
            (void)Thresholds::parse(std::string("metrics: {}\n") + bad, "user.yaml");
            ADD_FAILURE() << bad << " was accepted";
        } catch (const std::exception& e) {
            EXPECT_NE(std::string(e.what()).find("user.yaml:2"), std::string::npos) << e.what();
            EXPECT_NE(std::string(e.what()).find("warn_impact"), std::string::npos) << e.what();
        }
    }
}

}  // namespace
}  // namespace shakedown::analysis
