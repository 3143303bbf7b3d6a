// Noise: a healthy fabric whose every link measurement is spread by +-30 % (the fault bench's
// --noise 0.3: each measurement times its own factor uniform in [0.7, 1.3], seeded; the
// single-shot spread of the 4-node virtual cluster) never FAILs a node or a link in
// 1000 seeds when each link has repeated measurements (rounds, or several ranks per node), while
// the faults under the same noise are still found. In process: the matrices come from the
// generator's own function (bench::synthetic_link_matrix), no run folder is written.
#include "analysis/report/drain_output.hpp"
#include "analysis/rules/model/confirmation.hpp"
#include "link_fixtures.hpp"

#include <gtest/gtest.h>
#include <fmt/format.h>

#include <algorithm>

namespace shakedown::analysis {
namespace {

using testing::LinkCase;
using testing::node_name;
using testing::worst_level;

struct Shape {
    int nodes;
    int ranks_per_node;
    int rounds;
};

bench::SyntheticRunSpec spec_of(const Shape& shape, std::uint64_t seed, double noise = 0.3) {
    bench::SyntheticRunSpec spec = testing::allpairs_fleet(shape.nodes, shape.ranks_per_node);
    spec.noise = noise;
    spec.rounds = shape.rounds;
    spec.seed = seed;
    return spec;
}

struct Tally {
    int fails = 0;
    int warns = 0;
    std::string first_fail;
};

Tally healthy_seeds(const Shape& shape, int seeds) {
    const LinkCase run(spec_of(shape, 1));
    Tally tally;
    for (int seed = 1; seed <= seeds; ++seed) {
        const auto findings = run.findings(run.localize(spec_of(shape, static_cast<std::uint64_t>(seed))));
        const Level level = worst_level(findings);
        if (level == Level::fail && tally.fails++ == 0) tally.first_fail = fmt::format("seed {}: {}", seed, findings.front().reason);
        if (level == Level::warn) ++tally.warns;
    }
    return tally;
}

std::string shape_text(const Shape& shape) {
    return fmt::format("{} nodes x {} ranks x {} rounds", shape.nodes, shape.ranks_per_node, shape.rounds);
}

TEST(LinkNoise, HealthyFabricWithSpread03NeverFailsIn1000Seeds) {
    // The virtual cluster's 4 nodes with 3 rounds or 4 ranks per node, and larger fleets even
    // single-shot (their many links give the noise estimate enough to work with).
    for (const Shape shape : {Shape{4, 1, 3}, Shape{4, 4, 1}, Shape{3, 1, 5}, Shape{6, 1, 1}, Shape{8, 1, 1},
                              Shape{16, 1, 1}, Shape{16, 2, 1}}) {
        const Tally tally = healthy_seeds(shape, 1000);
        EXPECT_EQ(tally.fails, 0) << shape_text(shape) << ": " << tally.first_fail;
        EXPECT_LE(tally.warns, 10) << shape_text(shape);  // WARN is allowed, and rare
    }
}

TEST(LinkNoise, SingleShotTinyFleetsStillFailRarelyAndSaySoInTheirNumbers) {
    // 4 nodes, one rank each, one sample per direction: 2 samples per link and 6 links are too
    // few to tell a 0.65 link from this noise every time. What remains is measured here, so a
    // change that makes it worse shows: at most 1 % of seeds (the old single bound: 1 run in 13).
    const Tally tally = healthy_seeds(Shape{4, 1, 1}, 1000);
    EXPECT_LE(tally.fails, 10) << tally.first_fail;
}

TEST(LinkNoise, SingleShotFalseFailsAreNotConfirmedSoNothingDrains) {
    // The rare single-shot FAILs of a tiny healthy fleet are measured again (another seed: another
    // measurement of the same healthy fabric) before anything drains: none is confirmed in 1000.
    const Shape shape{4, 1, 1};
    const LinkCase run(spec_of(shape, 1));
    int first_fails = 0;
    int confirmed = 0;
    int drained = 0;
    for (int seed = 1; seed <= 1000; ++seed) {
        const auto first_links = run.localize(spec_of(shape, static_cast<std::uint64_t>(seed)));
        std::vector<Finding> first = run.findings(first_links);
        if (worst_level(first) != Level::fail) continue;
        ++first_fails;
        await_confirmation(first);
        const auto again = run.localize(spec_of(shape, static_cast<std::uint64_t>(seed + 100000)));
        Remeasured remeasured{"again", {}, {}};
        for (int node = 0; node < shape.nodes; ++node) remeasured.tests_by_node[node_name(node)].insert("allpairs");
        for (const NodeLink& link : again.links) remeasured.matrices["allpairs"].link_gbs[{std::min(link.a, link.b), std::max(link.a, link.b)}] = link.bandwidth_gbs;
        const auto final_findings = confirm_findings(first, first, remeasured, {&first_links});
        for (const Finding& finding : final_findings) confirmed += finding.confirmation == Confirmation::confirmed ? 1 : 0;
        drained += static_cast<int>(drain_list(judge(run.observations(), final_findings)).requests.size());
    }
    EXPECT_GT(first_fails, 0);  // the case exists (SingleShotTinyFleetsStillFailRarely...)
    EXPECT_EQ(confirmed, 0) << first_fails << " first-run FAILs";
    EXPECT_EQ(drained, 0);
}

TEST(LinkNoise, TheNoiseEstimateMatchesTheSpread) {
    // Uniform in [0.7, 1.3]: a sample's sigma of log is about 0.175; the pooled estimate from the
    // repeats comes within 25 % of it.
    const Shape shape{8, 1, 3};
    const LinkCase run(spec_of(shape, 1));
    const auto localization = run.localize(spec_of(shape, 7));
    EXPECT_NEAR(localization.noise.measured_sigma, 0.175, 0.045);
    EXPECT_EQ(localization.noise.typical_samples, 6);  // 2 directions x 3 rounds
    EXPECT_GT(localization.link_sigmas, 3.0);           // more than noise_sigmas: 28 links judged at once
}

TEST(LinkNoise, FaultsAreStillFoundUnderTheSameNoise) {
    const Shape shape{6, 1, 3};
    const LinkCase run(spec_of(shape, 1));
    for (std::uint64_t seed = 1; seed <= 100; ++seed) {
        bench::SyntheticRunSpec slow_node = spec_of(shape, seed);
        slow_node.slow_node = 2;  // its links x 0.3
        auto found = run.localize(slow_node);
        ASSERT_EQ(found.slow_nodes.size(), 1u) << "seed " << seed;
        EXPECT_EQ(found.slow_nodes[0].node, node_name(2));
        EXPECT_EQ(found.slow_nodes[0].level, Level::fail);
        EXPECT_EQ(run.drained(run.findings(found)), std::vector<std::string>{node_name(2)}) << "seed " << seed;

        bench::SyntheticRunSpec common_end = spec_of(shape, seed);
        common_end.slow_links = {{4, 0}, {4, 1}};
        common_end.slow_link_factor = 0.05;
        found = run.localize(common_end);
        EXPECT_EQ(run.drained(run.findings(found)), std::vector<std::string>{node_name(4)}) << "seed " << seed;

        bench::SyntheticRunSpec link = spec_of(shape, seed);
        link.slow_links = {{1, 3}};
        found = run.localize(link);
        const auto named = std::find_if(found.slow_links.begin(), found.slow_links.end(), [](const SlowLink& slow) {
            return slow.link.a == node_name(1) && slow.link.b == node_name(3) && slow.level == Level::fail;
        });
        EXPECT_NE(named, found.slow_links.end()) << "seed " << seed;
        EXPECT_TRUE(found.slow_nodes.empty()) << "seed " << seed;
        EXPECT_TRUE(run.drained(run.findings(found)).empty()) << "seed " << seed;
    }
}

}  // namespace
}  // namespace shakedown::analysis
