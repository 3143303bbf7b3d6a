// The link matrix assembly with synthetic measurements and a made-up node layout (two ranks
// per "node"), so inter-node links exist on one machine: every figure must land on its link.
#include "mpi/allpairs/link_matrix.hpp"
#include "support/mpi_world.hpp"
#include "support/result_lookup.hpp"

#include <gtest/gtest.h>

namespace shakedown::mpi {
namespace {

TEST(LinkMatrix, EveryMeasurementLandsOnItsOrderedPair) {
    const int p = testing::world_size();
    const int me = testing::world_rank();
    std::vector<comm::RankPlacement> placement;
    for (int r = 0; r < p; ++r) placement.push_back({r, r / 2});
    // Encode the link in the value: 1000 x src + dst.
    RankMeasurements mine;
    for (int k = 1; k < p; ++k) {
        mine.latency_to_us.push_back(1000.0 * me + (me + k) % p);
        mine.bandwidth_to_gbs.push_back(1000.0 * me + (me + k) % p);
    }
    const auto matrix = gather_link_matrix(MPI_COMM_WORLD, mine, placement);
    if (me == 0) {
        ASSERT_EQ(matrix.links.size(), static_cast<std::size_t>(p * (p - 1)));
        for (const auto& link : matrix.links) {
            EXPECT_EQ(link.latency_us, 1000.0 * link.src + link.dst);
            EXPECT_EQ(link.bandwidth_gbs, 1000.0 * link.src + link.dst);
            EXPECT_EQ(link.intra_node, link.src / 2 == link.dst / 2);
        }
        EXPECT_EQ(worst_links_first(matrix.links).front().bandwidth_gbs, 1.0);  // 0 -> 1
    } else {
        EXPECT_TRUE(matrix.links.empty());
    }
    const auto& intra = matrix.figures[static_cast<std::size_t>(LinkKind::intra_node)];
    const auto& inter = matrix.figures[static_cast<std::size_t>(LinkKind::inter_node)];
    const int partner = me ^ 1;
    if (partner < p) {
        // The only intra-node links of this rank are with its partner, both directions.
        EXPECT_EQ(*intra.my_bandwidth_min_gbs, 1000.0 * std::min(me, partner) + std::max(me, partner));
    }
    EXPECT_EQ(inter.my_bandwidth_min_gbs.has_value(), p > 2);
    EXPECT_EQ(inter.job_bandwidth_median_gbs.has_value(), p > 2);
}

// A sampled schedule (pairs_per_node): only the shifts measured become links, each on its pair.
TEST(LinkMatrix, SampledShiftsLandOnTheirPairsOnly) {
    const int p = testing::world_size();
    const int me = testing::world_rank();
    std::vector<comm::RankPlacement> placement;
    for (int r = 0; r < p; ++r) placement.push_back({r, r / 2});
    RankMeasurements mine;
    mine.shifts = {p - 1};  // toward the previous rank only
    mine.latency_to_us.push_back(1000.0 * me + (me + p - 1) % p);
    mine.bandwidth_to_gbs.push_back(1000.0 * me + (me + p - 1) % p);
    const auto matrix = gather_link_matrix(MPI_COMM_WORLD, mine, placement);
    if (me != 0) return;
    ASSERT_EQ(matrix.links.size(), static_cast<std::size_t>(p));
    for (const auto& link : matrix.links) {
        EXPECT_EQ(link.dst, (link.src + p - 1) % p);
        EXPECT_EQ(link.bandwidth_gbs, 1000.0 * link.src + link.dst);
        EXPECT_EQ(link.intra_node, link.src / 2 == link.dst / 2);
    }
}

}  // namespace
}  // namespace shakedown::mpi
