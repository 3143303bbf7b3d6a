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
    EXPECT_DOUBLE_EQ(*congestion_estimate(&run, {1, 4}).messages, 2 * 2 * (2 * 220.0 + 8 * 22));
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
