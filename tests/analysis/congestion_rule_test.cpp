// The congestion rule over run folders written with the real TraceWriter: 4 nodes of 2 ranks,
// each node's local rank 0 measuring (it carries the node's impact factors), rank 0 the job's.
// A node whose links degrade under load is named and FAILs (or WARNs) with the others ranked
// beside it; the healthy factors measured here on 4 oversubscribed ranks flag nothing; a fabric
// that degrades evenly is one configuration finding, nothing drained.
#include "analysis/load/observations.hpp"
#include "analysis/load/run_details.hpp"
#include "analysis/load/run_loader.hpp"
#include "analysis/rules/links/congestion_rule.hpp"
#include "analysis/rules/settings/thresholds.hpp"
#include "analysis_fixtures.hpp"
#include "comm/congestion_ring_columns.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <functional>

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
    const RunDetails details(run);
    return congestion_findings(observations, thresholds.settings(),
                               [&](const std::string& key) { return details.rank0_samples(key); });
}

// Rank 0's ring table for the measuring ranks 0, 2, 4, 6 (one per node) over the three rings
// four nodes have; `latency(node, previous, next)` (node indices) gives a row's p50 impact.
// `bandwidth_alone(node, previous)`: a row's baseline bandwidth (GB/s), 1 unless given.
SampleTable ring_table(const std::function<double(int, int, int)>& latency,
                       const std::function<double(int, int)>& bandwidth_alone = {}) {
    SampleTable table(congestion_ring_columns::columns());
    const std::array<std::array<int, 4>, 3> orders{{{0, 1, 2, 3}, {0, 2, 1, 3}, {0, 1, 3, 2}}};
    for (std::size_t k = 0; k < orders.size(); ++k)
        for (std::size_t i = 0; i < 4; ++i) {
            const int node = orders[k][i], previous = orders[k][(i + 3) % 4], next = orders[k][(i + 1) % 4];
            const double impact = latency(node, previous, next);
            const double alone = bandwidth_alone ? bandwidth_alone(node, previous) : 1.0;
            table.add_row({2.0 * node, static_cast<double>(node), static_cast<double>(k), 2.0 * previous, 2.0 * next, 20, 40,
                           alone, 20 * impact, 80, alone});
        }
    return table;
}

// The node figures the ring table gives (the median of each node's three rows), on its first rank.
std::vector<Trace> ring_traces(const std::function<double(int, int, int)>& latency,
                               const std::function<double(int, int)>& bandwidth_alone = {}) {
    const SampleTable table = ring_table(latency, bandwidth_alone);
    std::array<std::array<double, 3>, node_count> nodes{};
    for (int n = 0; n < node_count; ++n) {
        std::vector<double> mine;
        for (const auto& row : table.rows())
            if (row[1] == n) mine.push_back(row[8] / row[5]);
        std::sort(mine.begin(), mine.end());
        nodes[static_cast<std::size_t>(n)] = {mine[1], 2.0, 1.0};
    }
    auto traces = congestion_traces(nodes, {1.5, 2.0, 1.0});
    traces[0].tests.back().samples = table;
    return traces;
}

// node0002's link degrades under load: its neighbours wait for what it sends (36x), it barely moves.
double node2_shaped(int node, int previous, int next) {
    if (node == 2) return 1.3;
    return previous == 2 || next == 2 ? 36.0 : 1.2;
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

// Each other node is beside node0002 in two of the three rings, so each one's own figure is 36x
// too: judged node by node, all three would FAIL and node0002 would pass. From the ring table,
// node0002 is the one node all degraded figures have in common, and the only one named.
TEST(CongestionRule, WithTheRingTableTheNodeTheDegradedFiguresHaveInCommonIsNamedAloneWithItsNeighboursAsPeers) {
    const auto findings = findings_of(ring_traces(node2_shaped));
    ASSERT_EQ(findings.size(), 1u);
    const Finding& f = findings[0];
    EXPECT_EQ(f.node, "node0002");
    EXPECT_EQ(f.rank, 4);  // its measuring rank
    EXPECT_EQ(f.level, Level::fail);
    EXPECT_EQ(f.cause, Cause::hardware);
    EXPECT_TRUE(f.needs_confirmation());
    EXPECT_EQ(f.metric, "congestion.ring_links_impact");
    EXPECT_DOUBLE_EQ(*f.value, 36.0);
    EXPECT_EQ(f.peers, (std::vector<std::string>{"node0000", "node0001", "node0003"}));  // measured again with it
    EXPECT_EQ(f.reason,
              "node0002's links degrade under load: the 6 degraded ring figures measured across them (in 3 of 3 rings) "
              "are 36x worse beside the congestors than alone (their upper median, p50 ring latency; warn from 4x, fail "
              "from 10x); 0 of them its own, the others node0000, node0001 and node0003's, its ring neighbours there, "
              "which it explains; the most degraded nodes by their own figures: node0000 36x (p50 ring latency), "
              "node0001 36x (p50 ring latency), node0003 36x (p50 ring latency) and 1 more");
}

TEST(CongestionRule, WithTheRingTableHealthyFiguresAndOneNoisyOneNameNothing) {
    EXPECT_TRUE(findings_of(ring_traces([](int, int, int) { return 1.2; })).empty());
    // node0003's figure in one ring 8.35x (as a healthy virtual-cluster run gave): its median is fine.
    EXPECT_TRUE(findings_of(ring_traces([](int node, int previous, int) { return node == 3 && previous == 2 ? 8.35 : 1.2; }))
                    .empty());
}

// node0002's link at 10 Mbit/s, as on the virtual cluster: every ring bandwidth received across
// it is 300x below the others alone and under load alike (impact 1), and two figures that cross
// both node0002 and node0003 degrade 12x. Judged by impacts alone node0003 won that tie (the
// larger share of degraded figures); node0002 is named slow alone and explains them.
TEST(CongestionRule, ALinkSlowEvenAloneIsNamedByItsBandwidthsAloneAndNotItsNeighbour) {
    int crossing = 0;
    const auto findings = findings_of(ring_traces(
        [&](int node, int previous, int next) {
            const bool both = (previous == 3 && next == 2) || (previous == 2 && next == 3);
            return node != 2 && node != 3 && both && crossing++ < 2 ? 12.0 : 1.2;
        },
        [](int node, int previous) { return node == 2 || previous == 2 ? 1.0 / 300 : 1.0; }));
    ASSERT_EQ(crossing, 2);
    ASSERT_EQ(findings.size(), 2u);
    for (const Finding& f : findings) EXPECT_EQ(f.node, "node0002") << f.reason;
    EXPECT_EQ(findings[0].metric, "congestion.ring_links_slowdown_alone");
    EXPECT_EQ(findings[0].code, ReasonCode::slow_node_links);
    EXPECT_EQ(findings[0].level, Level::fail);
    EXPECT_TRUE(findings[0].needs_confirmation());
    EXPECT_DOUBLE_EQ(*findings[0].value, 300.0);
    EXPECT_NE(findings[0].reason.find("node0002's links are slow even without the congestors: the 6 ring bandwidths "
                                      "measured across them alone (in 3 of 3 rings) are 300x below the run's"),
              std::string::npos)
        << findings[0].reason;
    EXPECT_EQ(findings[1].metric, "congestion.ring_links_impact");
    EXPECT_EQ(findings[1].level, Level::fail);
    // Healthy bandwidths alone, spread as a healthy virtual-cluster run gave (0.39 to 0.61 GB/s): nothing.
    EXPECT_TRUE(findings_of(ring_traces([](int, int, int) { return 1.2; },
                                        [](int node, int previous) { return 0.39 + 0.055 * (node + previous); }))
                    .empty());
}

// node0002 at 50 Mbit/s, as in a CI run on the virtual cluster: slow alone, and the congestors'
// traffic to it backed up every sender, so node0003's figure in the ring that does not cross
// node0002 read 72x and its own median was in the band. node0002 FAILs; node0003 is a WARN that
// names node0002 as the likely cause. The twin without the slow link alone: the same figures
// FAIL node0003, as nothing else explains them.
TEST(CongestionRule, BesideALinkSlowAloneAnotherNodesDegradationIsAtMostAWarnThatNamesThePossibleCause) {
    const auto latency = [](int node, int previous, int next) {
        if (node == 3 && previous != 2 && next != 2) return 72.0;
        if (node == 2) return 1.3;
        return previous == 2 || next == 2 ? 36.0 : 1.2;
    };
    const auto findings =
        findings_of(ring_traces(latency, [](int node, int previous) { return node == 2 || previous == 2 ? 1.0 / 50 : 1.0; }));
    ASSERT_EQ(findings.size(), 3u);
    EXPECT_EQ(findings[0].node, "node0002");
    EXPECT_EQ(findings[0].metric, "congestion.ring_links_slowdown_alone");
    EXPECT_EQ(findings[0].level, Level::fail);
    EXPECT_EQ(findings[1].node, "node0002");
    EXPECT_EQ(findings[1].level, Level::fail);
    const Finding& victim = findings[2];
    EXPECT_EQ(victim.node, "node0003");
    EXPECT_EQ(victim.level, Level::warn);
    EXPECT_DOUBLE_EQ(*victim.bound, 4.0);
    EXPECT_NE(victim.reason.find("node0003's links degrade under load: its p50 ring latency is 36x worse"), std::string::npos)
        << victim.reason;
    EXPECT_NE(victim.reason.find("; at most a WARN while node0002 is slow even alone: the congestors send to it too"),
              std::string::npos)
        << victim.reason;

    const auto twin = findings_of(ring_traces(latency));
    const auto node3 = std::find_if(twin.begin(), twin.end(), [](const Finding& f) { return f.node == "node0003"; });
    ASSERT_NE(node3, twin.end());
    EXPECT_EQ(node3->level, Level::fail);
    EXPECT_EQ(node3->reason.find("at most a WARN"), std::string::npos) << node3->reason;
}

}  // namespace
}  // namespace shakedown::analysis
