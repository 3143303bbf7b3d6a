// Time inside a run: each ordered rank pair's rows of the allpairs matrix are its
// rounds. A node shaped 1.5 s into a 4-round allpairs read 0.012-0.023 GB/s in its later rounds,
// the pooled noise took that for "113 % per sample" and every node passed. A link whose rounds
// split into a before and an after further apart than any spread changed during the run: it is
// judged by its state at the end, named "degraded during the run" from that round, and its two
// parts are separate figures to the noise estimate. Healthy twins under the virtual cluster's
// spread never change.
#include "analysis/analyzer.hpp"
#include "link_fixtures.hpp"

#include <gtest/gtest.h>

namespace shakedown::analysis {
namespace {

using testing::LinkCase;
using testing::node_name;

bench::SyntheticRunSpec four_rounds(double noise = 0.02) {
    bench::SyntheticRunSpec spec = testing::allpairs_fleet(4);
    spec.rounds = 4;
    spec.noise = noise;
    return spec;
}

bench::SyntheticRunSpec node_slowed_from(int round, bench::SyntheticRunSpec spec) {
    spec.slow_node = 2;
    spec.slow_node_link_factor = 0.02;
    spec.link_faults_from_round = round;
    return spec;
}

TEST(LinkTimeline, ANodeThatSlowsDuringTheRunIsNamedWithTheRoundItSlowedFrom) {
    const LinkCase run(four_rounds());
    const auto localization = run.localize(node_slowed_from(2, four_rounds()));
    ASSERT_TRUE(localization.analyzed) << localization.note;
    EXPECT_LT(localization.noise.measured_sigma, 0.05);  // its two parts are not one figure's spread
    ASSERT_EQ(localization.slow_nodes.size(), 1u);
    EXPECT_EQ(localization.slow_nodes[0].node, node_name(2));
    EXPECT_EQ(localization.slow_nodes[0].level, Level::fail);
    for (const NodeLink& link : localization.slow_nodes[0].evidence) {
        EXPECT_TRUE(link.changed());
        EXPECT_EQ(link.changed_from_round, 2);
        EXPECT_GT(link.before_gbs, 20.0 * link.bandwidth_gbs);
    }
    const auto findings = run.findings(localization);
    ASSERT_EQ(findings.size(), 1u);
    EXPECT_NE(findings[0].reason.find("degraded during the run: slow from round 3 of 4,"), std::string::npos)
        << findings[0].reason;
    EXPECT_EQ(run.drained(findings), std::vector<std::string>{node_name(2)});
}

TEST(LinkTimeline, ALinkThatSlowsDuringTheRunIsTheLinkFromThatRound) {
    const LinkCase run(four_rounds());
    bench::SyntheticRunSpec spec = four_rounds();
    spec.slow_links = {{0, 1}};
    spec.slow_link_factor = 0.02;
    spec.link_faults_from_round = 1;
    const auto localization = run.localize(spec);
    ASSERT_EQ(localization.slow_links.size(), 1u);
    EXPECT_TRUE(localization.slow_nodes.empty());
    EXPECT_EQ(localization.slow_links[0].level, Level::fail);
    const auto findings = run.findings(localization);
    ASSERT_FALSE(findings.empty());
    EXPECT_NE(findings[0].reason.find("degraded during the run: slow from round 2 of 4,"), std::string::npos)
        << findings[0].reason;
    EXPECT_TRUE(run.drained(findings).empty());
}

// Slowed from the start, the same node is the same finding without "during the run".
TEST(LinkTimeline, ANodeSlowFromTheStartHasNoChange) {
    const LinkCase run(four_rounds());
    const auto localization = run.localize(node_slowed_from(0, four_rounds()));
    ASSERT_EQ(localization.slow_nodes.size(), 1u);
    for (const NodeLink& link : localization.links) EXPECT_FALSE(link.changed());
    const auto findings = run.findings(localization);
    ASSERT_EQ(findings.size(), 1u);
    EXPECT_EQ(findings[0].reason.find("during the run"), std::string::npos) << findings[0].reason;
}

TEST(LinkTimeline, UnderNoiseTheNodeIsDrainedAloneAndAHealthyFleetNeverChanges) {
    bench::SyntheticRunSpec noisy = four_rounds(0.3);
    const LinkCase run(noisy);
    for (std::uint64_t seed = 1; seed <= 200; ++seed) {
        SCOPED_TRACE("seed " + std::to_string(seed));
        noisy.seed = seed;
        const auto healthy = run.localize(noisy);
        for (const NodeLink& link : healthy.links) ASSERT_FALSE(link.changed()) << link.a << "<->" << link.b;
        for (int from : {1, 2, 3}) {
            const auto slowed = run.localize(node_slowed_from(from, noisy));
            EXPECT_EQ(run.drained(run.findings(slowed)), std::vector<std::string>{node_name(2)}) << "from round " << from;
        }
    }
}

}  // namespace
}  // namespace shakedown::analysis
