// The schedule simulator's counts, against what the tests' schedules run (no MPI needed).
#include "bench/schedule_model.hpp"

#include <gtest/gtest.h>

namespace shakedown::bench {
namespace {

Measured measured(const std::string& test, double seconds, Layout layout, std::map<std::string, std::string> parameters = {}) {
    return Measured{test, seconds, layout, std::move(parameters)};
}

TEST(ScheduleModel, AllpairsRunsOneRoundPerShiftAndScalesTheMeasuredRound) {
    const auto run = measured("allpairs", 0.3, {1, 4}, {{"rounds", "1"}, {"bandwidth_window", "4"}});
    const auto at = allpairs_estimate(&run, {64, 8});
    EXPECT_DOUBLE_EQ(at.rounds, 511);              // 512 ranks: 511 ring shifts
    EXPECT_NEAR(*at.seconds, 511 * 0.1, 1e-9);     // 3 measured rounds took 0.3 s
    // One shift of 512 ranks: 2 x 56 ping-pong messages, 4 x 7 window messages and 6 acks each.
    EXPECT_DOUBLE_EQ(*at.messages, 511.0 * 512 * (2 * 56 + 4 * 7 + 6));
    EXPECT_DOUBLE_EQ(*at.bytes, 511.0 * 512 * (2 * 56 * 8 + 4 * 7 * 1048576.0));
    const auto twice = measured("allpairs", 0.3, {1, 4}, {{"rounds", "2"}});
    EXPECT_DOUBLE_EQ(allpairs_estimate(&twice, {2, 1}).rounds, 2);
    EXPECT_FALSE(allpairs_estimate(nullptr, {2, 1}).seconds);  // nothing measured: counts only
}

TEST(ScheduleModel, NodeScopeRunsOneRoundPerNodeShiftOverTheLeaders) {
    const auto run = measured("allpairs", 0.3, {1, 4});  // every rank: 3 rounds of 0.1 s
    const auto at = allpairs_estimate(&run, {10000, 8}, {AllpairsScope::nodes, std::nullopt});
    EXPECT_EQ(at.test, "allpairs, scope nodes");
    EXPECT_DOUBLE_EQ(at.rounds, 9999);  // 10,000 leaders, not 80,000 ranks
    EXPECT_NEAR(*at.seconds, 9999 * 0.1, 1e-9);
    EXPECT_DOUBLE_EQ(*at.messages, 9999.0 * 10000 * (2 * 56 + 16 * 7 + 6));  // one leader per node sends
    EXPECT_DOUBLE_EQ(allpairs_estimate(&run, {10000, 8}).rounds, 79999);    // scope ranks, as before
}

TEST(ScheduleModel, ARunsRoundComesFromItsOwnRecordedScope) {
    // 4 nodes x 2 ranks in scope nodes: 3 rounds over the leaders took 0.3 s, so 0.1 s per round,
    // not 0.3 / 7 as if all 8 ranks had taken part.
    const auto by_node = measured("allpairs", 0.3, {4, 2}, {{"scope", "nodes"}});
    EXPECT_EQ(plan_of(&by_node).scope, AllpairsScope::nodes);
    EXPECT_EQ(plan_of(nullptr).scope, AllpairsScope::ranks);
    EXPECT_FALSE(plan_of(&by_node).pairs_per_node);
    const auto by_rank = measured("allpairs", 1, {1, 2}, {{"scope", "ranks"}});
    EXPECT_EQ(plan_of(&by_rank).scope, AllpairsScope::ranks);
    EXPECT_NEAR(*allpairs_estimate(&by_node, {64, 8}).seconds, 511 * 0.1, 1e-9);
    EXPECT_NEAR(*allpairs_estimate(&by_node, {4, 2}, plan_of(&by_node)).seconds, 0.3, 1e-9);  // its own layout
    const auto confirm = confirmation_estimate(&by_node, {10000, 8}, 100, 3, {AllpairsScope::nodes, std::nullopt});
    EXPECT_DOUBLE_EQ(confirm.rounds, 399);  // 400 leaders
    EXPECT_EQ(confirm.test, "confirmation (allpairs, scope nodes on 400 nodes)");
}

TEST(ScheduleModel, SampledPeersRunTwoShiftsPerPairOfPeers) {
    EXPECT_EQ(allpairs_shift_count(10000, std::nullopt), 9999);
    EXPECT_EQ(allpairs_shift_count(10000, 32), 32);
    EXPECT_EQ(allpairs_shift_count(10000, 31), 32);  // shifts come in mirror pairs
    EXPECT_EQ(allpairs_shift_count(10000, 20000), 9999);
    EXPECT_EQ(allpairs_shift_count(1, 4), 0);
    const auto run = measured("allpairs", 0.3, {1, 4});
    const auto at = allpairs_estimate(&run, {10000, 8}, {AllpairsScope::nodes, 32});
    EXPECT_EQ(at.test, "allpairs, scope nodes, 32 peers");
    EXPECT_DOUBLE_EQ(at.rounds, 32);
    EXPECT_NEAR(*at.seconds, 3.2, 1e-9);
    // A sampled run's round: its time over the shifts it ran (peers_measured's count, from pairs_per_node).
    const auto sampled = measured("allpairs", 0.4, {9, 1}, {{"scope", "nodes"}, {"pairs_per_node", "3"}});
    EXPECT_EQ(plan_of(&sampled).pairs_per_node, 3);
    EXPECT_NEAR(*allpairs_estimate(&sampled, {64, 8}).seconds, 511 * 0.1, 1e-9);  // 4 shifts took 0.4 s
    const auto automatic = measured("allpairs", 0.3, {1, 4}, {{"pairs_per_node", "auto"}});
    EXPECT_FALSE(plan_of(&automatic).pairs_per_node);
}

TEST(ScheduleModel, LocalPairThenLeaderRingNeedsTwoOrThreeRoundsAtAnyNodeCount) {
    EXPECT_EQ(local_then_ring_round_count({1, 4}), 1);
    EXPECT_EQ(local_then_ring_round_count({2, 1}), 1);
    EXPECT_EQ(local_then_ring_round_count({1000, 8}), 3);
    EXPECT_EQ(local_then_ring_round_count({10001, 8}), 4);
    const auto run = measured("p2p", 2.0, {1, 4});
    EXPECT_DOUBLE_EQ(*pair_rounds_estimate("p2p", &run, {10001, 8}).seconds, 8.0);
}

TEST(ScheduleModel, CongestionTakesItsMeasuredTimeAndConfirmationIsAllpairsOnTheFlaggedNodes) {
    const auto run = measured("congestion", 0.5, {1, 4});
    EXPECT_DOUBLE_EQ(*congestion_estimate(&run, {10000, 8}).seconds, 0.5);
    EXPECT_DOUBLE_EQ(*congestion_estimate(&run, {1, 4}).messages, 2 * 2 * (2 * 220.0 + 8 * 22));  // one ring
    const auto three_rings = measured("congestion", 1.5, {1, 4}, {{"rings", "3"}});
    EXPECT_DOUBLE_EQ(congestion_estimate(&three_rings, {1, 4}).rounds, 6);  // two phases of 3 rings
    EXPECT_DOUBLE_EQ(*congestion_estimate(&three_rings, {1, 4}).messages, 3 * 2 * 2 * (2 * 220.0 + 8 * 22));
    const auto allpairs = measured("allpairs", 0.3, {1, 4});
    const auto confirm = confirmation_estimate(&allpairs, {10000, 8}, 100, 3);
    EXPECT_DOUBLE_EQ(confirm.rounds, 400 * 8 - 1);  // 100 flagged nodes and 3 peers each
    EXPECT_DOUBLE_EQ(confirmation_estimate(&allpairs, {4, 8}, 100, 3).rounds, 31);  // never more than all nodes
}

TEST(ScheduleModel, NcclSweepCountsEveryLaunchOfEverySize) {
    const auto sweep = nccl_estimate({2, 8}, {});
    EXPECT_DOUBLE_EQ(sweep.rounds, 31 * 7 * 25);  // 8 B .. 8 GiB by 2, 7 collectives, 25 launches
    EXPECT_GT(*sweep.seconds, 25 * 8.0 * (1 << 30) * 3 / 50e9);  // at least the 8 GiB broadcast-like ones
}

}  // namespace
}  // namespace shakedown::bench
