// The node the degraded ring figures have in common (rules/links/congestion_localization.hpp): the
// shaped node of four is named alone although its own figures barely move and its neighbours'
// degrade; healthy figures and one noisy figure of one ring name nothing; two slow nodes far
// apart in one ring are both named; a table from before the ring columns gives no rows. A link
// slow even alone (its figures hardly degrade further under load) is named by the bandwidths
// alone against the run's upper quartile, and wins a tie of the impact search.
#include "analysis/rules/links/congestion_localization.hpp"
#include "comm/congestion_ring_columns.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cmath>

namespace shakedown::analysis {
namespace {

constexpr double warn = 4.0;

const std::function<bool(const std::string&)> own_fine = [](const std::string&) { return false; };

// One ring over `order` (node names, one measuring rank each, rank = index in `nodes`): each
// rank's row, its latency impact `latency(node, previous, next)`.
std::vector<RingRow> ring(int index, const std::vector<std::string>& order,
                          const std::function<double(const std::string&, const std::string&, const std::string&)>& latency) {
    std::vector<RingRow> rows;
    const std::size_t n = order.size();
    for (std::size_t i = 0; i < n; ++i) {
        RingRow row;
        row.rank = static_cast<int>(i);
        row.ring = index;
        row.node = order[i];
        row.previous = order[(i + n - 1) % n];
        row.next = order[(i + 1) % n];
        row.latency_p50_impact = latency(row.node, row.previous, row.next);
        row.bandwidth_impact = 1.0;
        rows.push_back(row);
    }
    return rows;
}

// A degraded link under load: the figures of its ring neighbours degrade 36x, its own 1.3x
// (as on the virtual cluster with node2's link shaped).
auto shaped(const std::string& slow) {
    return [slow](const std::string& node, const std::string& previous, const std::string& next) {
        if (node == slow) return 1.3;
        return previous == slow || next == slow ? 36.0 : 1.2;
    };
}

const std::vector<std::string> four{"node1", "node2", "node3", "node4"};

std::vector<RingRow> three_rings_of_four(const std::function<double(const std::string&, const std::string&, const std::string&)>& latency) {
    std::vector<RingRow> rows;
    // The three rings four nodes have: every node is beside each other one in two of them.
    const std::array<std::vector<std::string>, 3> orders{{{"node1", "node2", "node3", "node4"},
                                                          {"node1", "node3", "node2", "node4"},
                                                          {"node1", "node2", "node4", "node3"}}};
    for (int k = 0; k < 3; ++k)
        for (RingRow& row : ring(k, orders[static_cast<std::size_t>(k)], latency)) rows.push_back(row);
    return rows;
}

TEST(CongestionLocalization, TheNodeEveryDegradedFigureHasInCommonIsNamedAloneNotItsNeighbours) {
    const auto culprits = ring_culprits(three_rings_of_four(shaped("node2")), four, warn, own_fine);
    ASSERT_EQ(culprits.size(), 1u);
    EXPECT_EQ(culprits[0].node, "node2");
    EXPECT_TRUE(culprits[0].common_to_figures);
    EXPECT_EQ(culprits[0].evidence.size(), 6u);  // two neighbours in each of three rings
    EXPECT_EQ(culprits[0].neighbours, (std::vector<std::string>{"node1", "node3", "node4"}));
    EXPECT_DOUBLE_EQ(culprits[0].impact, 36.0);
    EXPECT_EQ(culprits[0].statistic, "latency_p50");
}

TEST(CongestionLocalization, HealthyFiguresAndOneNoisyFigureOfOneRingNameNothing) {
    const auto healthy = [](const std::string&, const std::string&, const std::string&) { return 1.2; };
    EXPECT_TRUE(ring_culprits(three_rings_of_four(healthy), four, warn, own_fine).empty());
    auto rows = three_rings_of_four(healthy);
    rows[6].latency_p50_impact = 8.35;  // node2's figure in the second ring (a core taken by a congestor)
    EXPECT_TRUE(ring_culprits(rows, four, warn, own_fine).empty());
    // Where that node's own figure (the median of its rows) is in the band too, it is its own.
    const auto culprits = ring_culprits(rows, four, warn, [](const std::string& node) { return node == "node2"; });
    ASSERT_EQ(culprits.size(), 1u);
    EXPECT_EQ(culprits[0].node, "node2");
    EXPECT_FALSE(culprits[0].common_to_figures);
    EXPECT_TRUE(culprits[0].neighbours.empty());
}

TEST(CongestionLocalization, TwoSlowNodesFarApartInOneRingAreBothNamed) {
    std::vector<std::string> eight;
    for (int i = 0; i < 8; ++i) eight.push_back("n" + std::to_string(i));
    const auto latency = [](const std::string& node, const std::string& previous, const std::string& next) {
        const auto slow = [](const std::string& n) { return n == "n1" || n == "n5"; };
        return !slow(node) && (slow(previous) || slow(next)) ? 20.0 : 1.1;
    };
    const auto culprits = ring_culprits(ring(0, eight, latency), eight, warn, own_fine);
    ASSERT_EQ(culprits.size(), 2u);
    EXPECT_EQ(culprits[0].node, "n1");
    EXPECT_EQ(culprits[0].neighbours, (std::vector<std::string>{"n0", "n2"}));
    EXPECT_EQ(culprits[1].node, "n5");
    EXPECT_EQ(culprits[1].neighbours, (std::vector<std::string>{"n4", "n6"}));
}

// A link slow even alone: every ring bandwidth received across it (its own node's and its next
// neighbour's, whose previous it is) 300x below the others; their impact about 1.
std::vector<RingRow> slow_alone(const std::string& slow) {
    auto rows = three_rings_of_four([](const std::string&, const std::string&, const std::string&) { return 1.2; });
    for (RingRow& row : rows) row.baseline_slowdown = row.node == slow || row.previous == slow ? 300.0 : 1.1;
    return rows;
}

TEST(CongestionLocalization, ALinkSlowEvenAloneIsNamedByTheBandwidthsAloneNotByTheImpacts) {
    const auto rows = slow_alone("node2");
    EXPECT_TRUE(ring_culprits(rows, four, warn, own_fine).empty());  // impacts about 1: nothing
    const auto culprits = ring_culprits(rows, four, warn, own_fine, RingFigure::baseline_slowdown);
    ASSERT_EQ(culprits.size(), 1u);
    EXPECT_EQ(culprits[0].node, "node2");
    EXPECT_EQ(culprits[0].evidence.size(), 6u);  // its own three and its next neighbour's in each ring
    EXPECT_DOUBLE_EQ(culprits[0].impact, 300.0);
    EXPECT_EQ(culprits[0].statistic, "bandwidth_alone");
}

TEST(CongestionLocalization, HealthyBandwidthsAloneNameNothing) {
    auto rows = three_rings_of_four([](const std::string&, const std::string&, const std::string&) { return 1.2; });
    for (std::size_t i = 0; i < rows.size(); ++i) rows[i].baseline_slowdown = 0.8 + 0.08 * static_cast<double>(i);  // 0.8..1.7
    EXPECT_TRUE(ring_culprits(rows, four, warn, own_fine, RingFigure::baseline_slowdown).empty());
}

TEST(CongestionLocalization, ATieOfTheImpactSearchGoesToTheNodeSlowAlone) {
    // Two degraded figures that cross both node2 (slow alone) and node3, as on the virtual
    // cluster with node2 at 10 Mbit/s: node3 has the larger share of degraded figures.
    auto rows = three_rings_of_four([](const std::string&, const std::string&, const std::string&) { return 1.2; });
    int marked = 0;
    for (RingRow& row : rows)
        if (marked < 2 && row.node != "node2" && row.node != "node3" &&
            ((row.previous == "node3" && row.next == "node2") || (row.previous == "node2" && row.next == "node3"))) {
            row.latency_p50_impact = 12.0;
            ++marked;
        }
    ASSERT_EQ(marked, 2);
    const auto by_share = ring_culprits(rows, four, warn, own_fine);
    ASSERT_EQ(by_share.size(), 1u);
    const auto preferred = ring_culprits(rows, four, warn, own_fine, RingFigure::impact, {"node2"});
    ASSERT_EQ(preferred.size(), 1u);
    EXPECT_EQ(preferred[0].node, "node2");
    EXPECT_EQ(preferred[0].evidence.size(), 2u);
}

TEST(CongestionLocalization, EachRowsSlowdownIsAgainstTheUpperQuartileOfTheBandwidthsAlone) {
    namespace columns = congestion_ring_columns;
    SampleTable table(columns::columns());
    for (int rank = 0; rank < 4; ++rank) table.add_row({double(rank), 0, 0, 0, 0, 10, 20, 1.0 + 0.1 * rank, 10, 20, 1.0});
    table.add_row({4, 0, 0, 0, 0, 10, 20, 0.013, 10, 20, 0.013});  // 10 Mbit/s: slow alone, no impact
    table.add_row({5, 0, 0, 0, 0, 10, 20, 0.0, 10, 20, 1.0});      // no bandwidth alone: no slowdown
    const auto rows = ring_rows(table, [](int) { return std::string("a"); });
    ASSERT_EQ(rows.size(), 6u);
    // The five positive bandwidths 0.013, 1.0, 1.1, 1.2, 1.3: the upper quartile is 1.2.
    EXPECT_DOUBLE_EQ(rows[2].baseline_slowdown, 1.0);
    EXPECT_DOUBLE_EQ(rows[4].baseline_slowdown, 1.2 / 0.013);
    EXPECT_DOUBLE_EQ(rows[4].bandwidth_impact, 1.0);
    EXPECT_TRUE(std::isnan(rows[5].baseline_slowdown));
}

TEST(CongestionLocalization, RowsComeFromTheRingColumnsAndRanksTheRunDoesNotHaveAreLeftOut) {
    namespace columns = congestion_ring_columns;
    SampleTable table(columns::columns());
    // rank, node_index, ring, previous, next, baseline p50, p99, GB/s, congested p50, p99, GB/s
    table.add_row({0, 0, 0, 2, 2, 10, 20, 4.0, 50, 90, 1.0});
    table.add_row({2, 1, 0, 0, 0, 10, 20, 4.0, 10, 20, 0.0});
    table.add_row({9, 1, 0, 0, 0, 10, 20, 4.0, 10, 20, 4.0});
    const auto rows = ring_rows(table, [](int rank) { return rank == 0 ? std::string("a") : rank == 2 ? "b" : ""; });
    ASSERT_EQ(rows.size(), 2u);
    EXPECT_EQ(rows[0].previous, "b");
    EXPECT_DOUBLE_EQ(rows[0].latency_p50_impact, 5.0);
    EXPECT_DOUBLE_EQ(rows[0].bandwidth_impact, 4.0);
    EXPECT_DOUBLE_EQ(rows[0].worst(), 5.0);
    EXPECT_TRUE(std::isnan(rows[1].bandwidth_impact));  // no congested bandwidth: no ratio
    EXPECT_DOUBLE_EQ(rows[1].worst(), 1.0);
    const SampleTable before({{"rank", "rank"}, {"node_index", "index"}, {"baseline_latency_p50_us", "us"}});
    EXPECT_TRUE(ring_rows(before, [](int) { return std::string("a"); }).empty());
}

}  // namespace
}  // namespace shakedown::analysis
