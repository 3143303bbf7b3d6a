// Groups: the nodes behind one slow switch uplink are one culprit — the switch when a
// topology.conf names a leaf holding exactly them, else "group of nodes" — found even where its
// cross links are most of the fleet's links (a third or half of the nodes), and under noise; several
// separately slow nodes stay nodes; a healthy fleet with a topology is not flagged.
#include "analysis/rules/settings/topology.hpp"
#include "link_fixtures.hpp"

#include <gtest/gtest.h>

namespace shakedown::analysis {
namespace {

using testing::LinkCase;
using testing::node_name;

bench::SyntheticRunSpec fleet(int nodes) { return testing::allpairs_fleet(nodes); }

const Topology two_leaves = Topology::parse("SwitchName=leaf0 Nodes=node[0000-0003]\n"
                                            "SwitchName=leaf1 Nodes=node[0004-0005]\n"
                                            "SwitchName=spine Switches=leaf[0-1]\n",
                                            "topology.conf");

TEST(LinkSwitch, AGroupBehindOneLeafIsThatSwitchAndDrainsItsNodes) {
    const LinkCase run(fleet(6));
    bench::SyntheticRunSpec spec = fleet(6);
    spec.slow_group = {4, 5};
    const auto localization = run.localize(spec, &two_leaves);
    ASSERT_EQ(localization.slow_groups.size(), 1u);
    const SlowGroup& group = localization.slow_groups[0];
    EXPECT_EQ(group.switch_name, "leaf1");
    EXPECT_EQ(group.nodes, (std::vector<std::string>{node_name(4), node_name(5)}));
    EXPECT_EQ(group.cross_links, 8);
    EXPECT_EQ(group.level, Level::fail);
    EXPECT_TRUE(localization.slow_nodes.empty());
    EXPECT_TRUE(localization.slow_links.empty());
    const auto findings = run.findings(localization);
    ASSERT_EQ(findings.size(), 2u);
    EXPECT_NE(findings[0].reason.find("slow group: switch leaf1 (node0004, node0005)"), std::string::npos) << findings[0].reason;
    EXPECT_EQ(run.drained(findings), (std::vector<std::string>{node_name(4), node_name(5)}));

    const auto unnamed = run.localize(spec);
    ASSERT_EQ(unnamed.slow_groups.size(), 1u);
    EXPECT_FALSE(unnamed.slow_groups[0].switch_name);
    EXPECT_NE(run.findings(unnamed)[0].reason.find("group of nodes node0004, node0005"), std::string::npos);
}

TEST(LinkSwitch, HalfTheFleetBehindASlowUplinkIsStillAGroup) {
    // 9 of the 15 links cross: the links touching neither end of a cross link are mostly cross
    // links too, so only the low mode (left out of every reference) keeps the healthy level.
    const LinkCase run(fleet(6));
    bench::SyntheticRunSpec spec = fleet(6);
    spec.slow_group = {3, 4, 5};
    const auto localization = run.localize(spec);
    EXPECT_EQ(localization.low_mode_links, 9);
    ASSERT_EQ(localization.slow_groups.size(), 1u);
    EXPECT_EQ(localization.slow_groups[0].nodes, (std::vector<std::string>{node_name(3), node_name(4), node_name(5)}));
    EXPECT_TRUE(localization.slow_groups[0].even_split);
    EXPECT_TRUE(localization.slow_nodes.empty());
}

TEST(LinkSwitch, UnderNoiseTheGroupIsOneCulprit) {
    bench::SyntheticRunSpec spec = fleet(8);
    spec.noise = 0.3;
    spec.rounds = 3;
    spec.slow_group = {6, 7};
    const LinkCase run(spec);
    for (std::uint64_t seed = 1; seed <= 100; ++seed) {
        spec.seed = seed;
        const auto localization = run.localize(spec);
        ASSERT_EQ(localization.slow_groups.size(), 1u) << "seed " << seed;
        EXPECT_EQ(localization.slow_groups[0].nodes, (std::vector<std::string>{node_name(6), node_name(7)})) << "seed " << seed;
        EXPECT_EQ(run.drained(run.findings(localization)), (std::vector<std::string>{node_name(6), node_name(7)}))
            << "seed " << seed;
    }
}

TEST(LinkSwitch, FourSeparatelySlowNodesOfEightAreFourNodes) {
    // Their links are 22 of 28: no median of the links touching neither end is healthy, the low
    // mode is. Each is slow with everyone, each other included: nodes, not a group.
    const LinkCase run(fleet(8));
    bench::SyntheticRunSpec spec = fleet(8);
    spec.slow_group = {};
    auto matrix = bench::synthetic_link_matrix(spec);
    const auto bandwidth = *matrix.column_index("bandwidth_gbs");
    const auto src = *matrix.column_index("src");
    const auto dst = *matrix.column_index("dst");
    SampleTable slowed(matrix.columns());
    for (std::vector<double> row : matrix.rows()) {
        const bool slow_src = row[src] >= 4;
        const bool slow_dst = row[dst] >= 4;
        if (slow_src || slow_dst) row[bandwidth] *= 0.3;
        slowed.add_row(std::move(row));
    }
    const auto localization = localize_links(slowed, run.observations(), nullptr, LinkBands{});
    ASSERT_EQ(localization.slow_nodes.size(), 4u);
    EXPECT_TRUE(localization.slow_groups.empty());
    for (int i = 0; i < 4; ++i) EXPECT_EQ(localization.slow_nodes[static_cast<std::size_t>(i)].node, node_name(4 + i));
    EXPECT_EQ(run.drained(run.findings(localization)).size(), 4u);
}

TEST(LinkSwitch, AHealthyFleetWithATopologyIsNotFlagged) {
    const LinkCase run(fleet(6));
    const auto localization = run.localize(fleet(6), &two_leaves);
    EXPECT_TRUE(localization.slow_groups.empty());
    EXPECT_TRUE(localization.slow_nodes.empty());
    EXPECT_TRUE(localization.slow_links.empty());
    EXPECT_EQ(localization.low_mode_links, 0);
}

}  // namespace
}  // namespace shakedown::analysis
