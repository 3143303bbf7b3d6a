#include "core/result.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace shakedown {
namespace {

TEST(Result, UsableFractionRespectsDirection) {
    const Metric bandwidth{"stream.triad_gbs", "GB/s", 80.0, 100.0, Better::higher};
    EXPECT_DOUBLE_EQ(*bandwidth.usable_fraction(), 0.8);
    const Metric latency{"p2p.latency_us", "us", 4.0, 2.0, Better::lower};
    EXPECT_DOUBLE_EQ(*latency.usable_fraction(), 0.5);
    const Metric unknown{"x", "s", 1.0, std::nullopt, Better::higher};
    EXPECT_FALSE(unknown.usable_fraction());
}

TEST(Result, FailKeepsEveryReasonInOrder) {
    TestResult result;
    result.fail("copy[3] = 2 (expected 1)");
    result.fail("dot off by 1e-3");
    EXPECT_EQ(result.status, Status::fail);
    EXPECT_EQ(result.reason, "copy[3] = 2 (expected 1); dot off by 1e-3");
}

TEST(Result, SampleTableRejectsRowsOfTheWrongWidth) {
    SampleTable table({{"size", "B"}, {"seconds", "s"}});
    table.add_row({8, 1e-6});
    EXPECT_THROW(table.add_row({8}), std::invalid_argument);
    EXPECT_EQ(table.column("seconds"), std::vector<double>{1e-6});
    EXPECT_TRUE(table.column("absent").empty());
}

TEST(Result, EnumNamesRoundTrip) {
    for (Status status : {Status::pass, Status::fail, Status::waived, Status::error})
        EXPECT_EQ(status_from_string(to_string(status)), status);
    EXPECT_FALSE(status_from_string("passed"));
}

}  // namespace
}  // namespace shakedown
