// allpairs' shift schedule (mpi/allpairs/shift_schedule.hpp): every shift by default, or a sample that
// gives each rank K distinct peers in both directions, the same for the same seed.
#include "mpi/allpairs/shift_schedule.hpp"

#include <gtest/gtest.h>

#include <numeric>
#include <set>

namespace shakedown::mpi {
namespace {

TEST(ShiftSchedule, EveryShiftWithoutASampleOrWhenTheSampleIsAll) {
    const std::vector<int> all = {1, 2, 3, 4, 5};
    EXPECT_EQ(schedule_shifts(6, std::nullopt, 1), all);
    EXPECT_EQ(schedule_shifts(6, 5, 1), all);
    EXPECT_EQ(schedule_shifts(6, 900, 1), all);
    EXPECT_TRUE(schedule_shifts(1, std::nullopt, 1).empty());
    EXPECT_EQ(schedule_shifts(2, 1, 7), std::vector<int>{1});
}

TEST(ShiftSchedule, ASampleGivesEachRankItsPeersInBothDirections) {
    const int p = 10000;
    for (const std::int64_t k : {1, 2, 7, 32, 100}) {
        const std::vector<int> shifts = schedule_shifts(p, k, 42);
        const auto wanted = static_cast<std::size_t>(2 * ((k + 1) / 2));
        ASSERT_EQ(shifts.size(), wanted) << k;
        EXPECT_TRUE(std::is_sorted(shifts.begin(), shifts.end()));
        const std::set<int> distinct(shifts.begin(), shifts.end());
        EXPECT_EQ(distinct.size(), wanted) << "every peer of a rank distinct";
        for (const int s : shifts) {
            EXPECT_GE(s, 1);
            EXPECT_LT(s, p);
            EXPECT_TRUE(distinct.count(p - s)) << "shift " << s << " without its mirror: one direction only";
        }
        // Rank 1234's peers: it sends toward (i+s)%P and hears from (i-s)%P, the same set.
        std::set<int> to, from;
        for (const int s : shifts) {
            to.insert((1234 + s) % p);
            from.insert((1234 - s + p) % p);
        }
        EXPECT_EQ(to, from);
        EXPECT_EQ(to.size(), wanted);
    }
}

TEST(ShiftSchedule, TheSameSeedTheSameShiftsAnotherSeedOthers) {
    EXPECT_EQ(schedule_shifts(10000, 32, 5), schedule_shifts(10000, 32, 5));
    EXPECT_NE(schedule_shifts(10000, 32, 5), schedule_shifts(10000, 32, 6));
    // Small fleets: a sample one short of all leaves exactly one mirror pair (or P/2) out.
    EXPECT_EQ(schedule_shifts(7, 5, 3).size(), 6u);   // ceil(5/2) = 3 pairs = all of 1..6
    EXPECT_EQ(schedule_shifts(6, 4, 3).size(), 4u);   // two of the pairs {1,5}, {2,4}; 3 never
    for (const int s : schedule_shifts(6, 4, 3)) EXPECT_NE(s, 3);
}

}  // namespace
}  // namespace shakedown::mpi
