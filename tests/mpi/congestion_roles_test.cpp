// Which ranks of the congestion test measure and which congest: no MPI needed.
#include "core/errors.hpp"
#include "mpi/congestion/congestion_ring.hpp"
#include "mpi/congestion/congestion_roles.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

namespace shakedown::mpi {
namespace {

std::vector<comm::RankPlacement> nodes_of(const std::vector<int>& node_of_rank) {
    std::vector<comm::RankPlacement> placement;
    for (std::size_t r = 0; r < node_of_rank.size(); ++r) placement.push_back({static_cast<int>(r), node_of_rank[r]});
    return placement;
}

TEST(CongestionRoles, EveryNodeWithSeveralRanksGetsBothKinds) {
    const auto roles = congestion_roles(nodes_of({0, 0, 0, 0, 1, 1, 1, 1}), 0.5);
    EXPECT_TRUE(roles.per_node_mix);
    EXPECT_EQ(roles.congests, (std::vector<bool>{false, true, false, true, false, true, false, true}));
    EXPECT_EQ(roles.describe(), "4 measuring, 4 congesting (on every node)");
    const auto quarter = congestion_roles(nodes_of({0, 0, 0, 0, 0, 0, 0, 0}), 0.25);
    EXPECT_EQ(std::count(quarter.congests.begin(), quarter.congests.end(), true), 2);
}

TEST(CongestionRoles, RanksAloneOnTheirNodesAreSplitByWholeNodes) {
    const auto roles = congestion_roles(nodes_of({0, 1, 2, 3, 4, 5}), 0.5);
    EXPECT_FALSE(roles.per_node_mix);
    EXPECT_EQ(roles.congests, (std::vector<bool>{false, true, false, true, false, true}));
    // One node of two ranks beside single-rank nodes: whole nodes still.
    const auto mixed = congestion_roles(nodes_of({0, 0, 1, 2}), 0.5);
    EXPECT_EQ(mixed.congests, (std::vector<bool>{false, false, true, false}));
}

TEST(CongestionRoles, AFractionLeavingNoCongestorOrTooFewMeasuringRanksIsAnInputError) {
    try {
        (void)congestion_roles(nodes_of({0, 1, 2, 3}), 0.2);
        FAIL() << "no InputError";
    } catch (const InputError& e) {
        EXPECT_STREQ(e.what(), "congestion: congestor_fraction 0.2 of 4 ranks on 4 nodes leaves 4 measuring and 0 congesting "
                               "ranks; it needs at least 2 and 1");
    }
    EXPECT_THROW((void)congestion_roles(nodes_of({0, 0, 0, 0}), 0.9), InputError);
}

TEST(CongestionRing, TheRandomRingIsAPermutationTheSameForTheSameSeed) {
    const auto ring = random_ring(64, 7);
    EXPECT_EQ(ring, random_ring(64, 7));
    EXPECT_NE(ring, random_ring(64, 8));
    auto sorted = ring;
    std::sort(sorted.begin(), sorted.end());
    std::vector<int> all(64);
    std::iota(all.begin(), all.end(), 0);
    EXPECT_EQ(sorted, all);
    std::vector<int> world(64);
    for (int i = 0; i < 64; ++i) world[static_cast<std::size_t>(i)] = 100 + i;
    const auto place = ring_place(ring, ring[5], world);
    EXPECT_EQ(place.next, ring[6]);
    EXPECT_EQ(place.previous, ring[4]);
    EXPECT_EQ(place.next_world, 100 + ring[6]);
}

// Every rank's unordered neighbour pair: rings equal up to rotation and direction have the same.
std::vector<std::pair<int, int>> neighbours(const std::vector<int>& ring) {
    std::vector<std::pair<int, int>> pairs(ring.size());
    for (std::size_t i = 0; i < ring.size(); ++i)
        pairs[static_cast<std::size_t>(ring[i])] =
            std::minmax(ring[(i + ring.size() - 1) % ring.size()], ring[(i + 1) % ring.size()]);
    return pairs;
}

// Four ranks have exactly three rings; three drawn rings are all of them, so every rank is
// beside each other rank in two of the three. Three ranks have one ring, which is all it can give.
TEST(CongestionRing, TheRingsOfAPhaseDifferWhereTheRanksAllow) {
    for (std::uint64_t seed : {1, 2, 3, 99}) {
        const auto rings = random_rings(4, seed, 3);
        ASSERT_EQ(rings.size(), 3u);
        EXPECT_NE(neighbours(rings[0]), neighbours(rings[1])) << seed;
        EXPECT_NE(neighbours(rings[0]), neighbours(rings[2])) << seed;
        EXPECT_NE(neighbours(rings[1]), neighbours(rings[2])) << seed;
        EXPECT_EQ(rings, random_rings(4, seed, 3));  // the same on every rank
    }
    const auto three = random_rings(3, 5, 3);
    ASSERT_EQ(three.size(), 3u);
    EXPECT_EQ(neighbours(three[0]), neighbours(three[2]));
    EXPECT_EQ(random_rings(64, 7, 1).front(), random_ring(64, 7));  // the first ring is the seed's
}

}  // namespace
}  // namespace shakedown::mpi
