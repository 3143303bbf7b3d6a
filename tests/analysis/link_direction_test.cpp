// One direction of a link slow (node1 -> node2 shaped to 2 % of healthy, the reverse
// untouched, read as one link at 0.42 and ended a WARN on node1): each direction is judged on
// its own against the link's reference, so the link FAILs as that direction and is named with it;
// a node slow in every link the same way is named by its side (send or receive). Healthy twins
// under the virtual cluster's noise are never called one direction.
#include "analysis/analyzer.hpp"
#include "link_fixtures.hpp"

#include <gtest/gtest.h>

#include <map>

namespace shakedown::analysis {
namespace {

using testing::LinkCase;
using testing::node_name;

bench::SyntheticRunSpec four_nodes() { return testing::allpairs_fleet(4); }

bench::SyntheticRunSpec slow_sends(std::vector<std::pair<int, int>> directions,
                                   bench::SyntheticRunSpec spec = four_nodes()) {
    spec.slow_directions = std::move(directions);
    spec.slow_link_factor = 0.02;
    return spec;
}

TEST(LinkDirection, OneSlowDirectionIsThatLinkNamedWithItsDirectionNotANode) {
    const LinkCase run(four_nodes());
    for (const auto& [from, to] : std::vector<std::pair<int, int>>{{0, 1}, {1, 0}}) {
        SCOPED_TRACE(node_name(from) + " -> " + node_name(to));
        const auto localization = run.localize(slow_sends({{from, to}}));
        ASSERT_TRUE(localization.analyzed) << localization.note;
        EXPECT_TRUE(localization.slow_nodes.empty());
        EXPECT_TRUE(localization.slow_groups.empty());
        ASSERT_EQ(localization.slow_links.size(), 1u);
        const NodeLink& link = localization.slow_links[0].link;
        EXPECT_EQ(localization.slow_links[0].level, Level::fail);
        EXPECT_TRUE(link.one_direction());
        EXPECT_EQ(link.slow_from, node_name(from));
        EXPECT_LT(link.ratio, 0.05);
        EXPECT_GT(link.reverse_ratio, 0.9);

        const auto findings = run.findings(localization);
        ASSERT_EQ(findings.size(), 2u);  // the link, on each of its ends
        for (const Finding& finding : findings) {
            EXPECT_EQ(finding.level, Level::fail);
            EXPECT_NE(
                finding.reason.find("slow link " + node_name(from) + "->" + node_name(to) + " (one direction; the reverse"),
                std::string::npos)
                << finding.reason;
        }
        EXPECT_TRUE(run.drained(findings).empty());  // a link is not a node: neither end drains for it
    }
}

// Both directions at 0.02: the link as before, judged on both.
TEST(LinkDirection, BothDirectionsSlowIsTheLinkAsBefore) {
    const LinkCase run(four_nodes());
    const auto localization = run.localize(slow_sends({{0, 2}, {2, 0}}));
    ASSERT_EQ(localization.slow_links.size(), 1u);
    EXPECT_FALSE(localization.slow_links[0].link.one_direction());
    EXPECT_EQ(localization.slow_links[0].level, Level::fail);
}

std::vector<std::pair<int, int>> from_node(int node, int nodes, bool sends) {
    std::vector<std::pair<int, int>> directions;
    for (int peer = 0; peer < nodes; ++peer)
        if (peer != node) directions.push_back(sends ? std::pair{node, peer} : std::pair{peer, node});
    return directions;
}

// On 4 nodes a node's three one-way links are half of the links: their directions are separate
// figures to the pooled noise, or their asymmetry would be taken for the fabric's spread.
TEST(LinkDirection, ANodeSlowInEverythingItSendsIsItsSendSide) {
    for (int nodes : {4, 8}) {
        SCOPED_TRACE(std::to_string(nodes) + " nodes");
        const bench::SyntheticRunSpec fleet = testing::allpairs_fleet(nodes);
        const LinkCase run(fleet);
        const auto localization = run.localize(slow_sends(from_node(2, nodes, true), fleet));
        ASSERT_EQ(localization.slow_nodes.size(), 1u);
        EXPECT_EQ(localization.slow_nodes[0].node, node_name(2));
        EXPECT_EQ(localization.slow_nodes[0].level, Level::fail);
        EXPECT_TRUE(localization.slow_links.empty());
        const auto findings = run.findings(localization);
        ASSERT_EQ(findings.size(), 1u);
        EXPECT_NE(findings[0].reason.find("each slow only in what node0002 sends: its send side"), std::string::npos)
            << findings[0].reason;
        EXPECT_EQ(run.drained(findings), std::vector<std::string>{node_name(2)});

        const auto receiving = run.localize(slow_sends(from_node(2, nodes, false), fleet));
        ASSERT_EQ(receiving.slow_nodes.size(), 1u);
        const auto receive_findings = run.findings(receiving);
        ASSERT_EQ(receive_findings.size(), 1u);
        EXPECT_NE(receive_findings[0].reason.find("each slow only in what node0002 receives: its receive side"),
                  std::string::npos)
            << receive_findings[0].reason;
    }
}

// A direction only in the WARN band (0.8 of the reverse) is not a one-direction FAIL: the link
// keeps the figure of both directions.
TEST(LinkDirection, AMildlySlowerDirectionIsNotCalledOneDirection) {
    const LinkCase run(four_nodes());
    bench::SyntheticRunSpec mild = slow_sends({{0, 1}});
    mild.slow_link_factor = 0.8;
    const auto localization = run.localize(mild);
    for (const NodeLink& link : localization.links) EXPECT_FALSE(link.one_direction()) << link.a << "<->" << link.b;
    EXPECT_EQ(testing::worst_level(run.findings(localization)) == Level::fail, false);
}

// The virtual cluster's single-shot spread (0.3): a healthy fleet never has a one-direction link,
// single shots or repeated; with repeated rounds the slow direction is named in every seed and
// nothing is drained. (Single shots at that spread read healthy links at 0.6 of their reference
// on both directions: a link or node FAIL from noise alone, the link rules' matter, not this one.)
TEST(LinkDirection, UnderNoiseTheSlowDirectionIsNamedAndAHealthyFleetNeverHasOne) {
    for (int rounds : {1, 3}) {
        bench::SyntheticRunSpec noisy = four_nodes();
        noisy.noise = 0.3;
        noisy.rounds = rounds;
        const LinkCase run(noisy);
        for (std::uint64_t seed = 1; seed <= 200; ++seed) {
            SCOPED_TRACE("rounds " + std::to_string(rounds) + ", seed " + std::to_string(seed));
            noisy.seed = seed;
            const auto healthy = run.localize(noisy);
            for (const NodeLink& link : healthy.links) ASSERT_FALSE(link.one_direction()) << link.a << "<->" << link.b;
            if (rounds == 1) continue;
            const auto faulty = run.localize(slow_sends({{1, 3}}, noisy));
            ASSERT_EQ(faulty.slow_links.size(), 1u);
            EXPECT_EQ(faulty.slow_links[0].link.slow_from, node_name(1));
            EXPECT_TRUE(run.drained(run.findings(faulty)).empty());
        }
    }
}

}  // namespace
}  // namespace shakedown::analysis
