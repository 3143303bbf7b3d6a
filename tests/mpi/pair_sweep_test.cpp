// The pair-sweep harness on the real communicator: every pair of every round is measured once,
// by both of its ranks (they really meet: a message each way), with the right peer and world ranks.
#include "comm/pair_sweep.hpp"
#include "support/mpi_world.hpp"

#include <gtest/gtest.h>

#include <set>
#include <utility>

namespace shakedown::comm {
namespace {

// Every rank its own node, all pairs (i, j) packed into rounds of disjoint pairs.
PairRounds all_pairs(const std::vector<RankPlacement>& placement) {
    std::vector<RankPair> pairs;
    for (int i = 0; i < static_cast<int>(placement.size()); ++i)
        for (int j = i + 1; j < static_cast<int>(placement.size()); ++j) pairs.push_back({i, j, false});
    return pack_into_rounds(pairs);
}

TEST(PairSweep, EveryPairIsMeasuredOnceByBothRanksWithItsPeer) {
    const Session session(MPI_COMM_WORLD, 0);
    const PairSweep sweep(MPI_COMM_WORLD, session, all_pairs);
    const int me = testing::world_rank();
    const int size = testing::world_size();
    ASSERT_EQ(sweep.placement().size(), static_cast<std::size_t>(size));

    std::set<int> peers;
    int turns = 0;
    sweep.for_each_turn([&](const PairTurn& turn) {
        ++turns;
        EXPECT_TRUE(turn.pair.first == me || turn.pair.second == me);
        EXPECT_EQ(turn.peer, turn.pair.first == me ? turn.pair.second : turn.pair.first);
        EXPECT_EQ(turn.initiator, turn.pair.first == me);
        EXPECT_EQ(turn.peer_world, turn.peer);  // MPI_COMM_WORLD: comm rank = world rank
        EXPECT_EQ(turn.world_of(me), me);
        EXPECT_EQ(turn.label(), "ranks " + std::to_string(turn.first_world) + "-" + std::to_string(turn.second_world));
        EXPECT_TRUE(peers.insert(turn.peer).second) << "peer " << turn.peer << " twice";
        // Both ends really meet: exchange ranks with the peer.
        int theirs = -1;
        MPI_Sendrecv(&me, 1, MPI_INT, turn.peer, 7, &theirs, 1, MPI_INT, turn.peer, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        EXPECT_EQ(theirs, turn.peer);
    });
    EXPECT_EQ(turns, size - 1);  // every other rank, once
    EXPECT_NE(sweep.description().find("0-1"), std::string::npos) << sweep.description();
}

TEST(PairSweep, NoRoundsMeansNoTurnsAndNoHang) {
    const Session session(MPI_COMM_WORLD, 0);
    const PairSweep sweep(MPI_COMM_WORLD, session, [](const std::vector<RankPlacement>&) { return PairRounds{}; });
    EXPECT_TRUE(sweep.empty());
    int turns = 0;
    sweep.for_each_turn([&](const PairTurn&) { ++turns; });
    EXPECT_EQ(turns, 0);
}

}  // namespace
}  // namespace shakedown::comm
