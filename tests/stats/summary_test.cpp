// The one set of order statistics every family and the analyzer report with.
#include "stats/summary.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

namespace shakedown::stats {
namespace {

TEST(Summary, MedianIsTheMiddleOrTheMeanOfTheTwoMiddleValues) {
    EXPECT_DOUBLE_EQ(median(std::vector<double>{3, 1, 2}), 2.0);
    EXPECT_DOUBLE_EQ(median(std::vector<double>{4, 1, 3, 2}), 2.5);
    EXPECT_DOUBLE_EQ(summarize(std::vector<double>{4, 1, 3, 2}).median, 2.5);
}

TEST(Summary, PercentilesByNearestRankAsPerftestAndOsu) {
    std::vector<double> values(2000);
    std::iota(values.begin(), values.end(), 1.0);  // 1 .. 2000, given in reverse
    std::reverse(values.begin(), values.end());
    const Summary s = summarize(values);
    EXPECT_EQ(s.count, 2000u);
    EXPECT_EQ(s.min, 1.0);
    EXPECT_EQ(s.max, 2000.0);
    EXPECT_EQ(s.median, 1000.5);
    EXPECT_EQ(s.mean, 1000.5);
    EXPECT_EQ(s.p99, 1980.0);
    EXPECT_EQ(s.p99_9, 1998.0);
    EXPECT_EQ(percentile(values, 0.5), 1000.0);
}

TEST(Summary, AnEmptySetHasNoFiguresNotZeros) {
    const Summary s = summarize({});
    EXPECT_EQ(s.count, 0u);
    for (const double figure : {s.min, s.median, s.mean, s.p99, s.p99_9, s.max}) EXPECT_TRUE(std::isnan(figure));
    EXPECT_TRUE(std::isnan(median({})));
    EXPECT_TRUE(std::isnan(percentile({}, 0.99)));
    EXPECT_TRUE(std::isnan(mad({}, 1.0)));
}

TEST(Summary, MadIsTheMedianAbsoluteDeviation) {
    EXPECT_DOUBLE_EQ(mad(std::vector<double>{1, 2, 3, 4, 100}, 3.0), 1.0);
}

}  // namespace
}  // namespace shakedown::stats
