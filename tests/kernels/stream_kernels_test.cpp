// The STREAM table and gold values, without running anything.
#include "kernels/stream/stream_kernels.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace shakedown::kernels {
namespace {

TEST(StreamTable, BytesPerElementFollowTheArraysTouched) {
    EXPECT_EQ(info(StreamKernel::copy).bytes_per_element(), 16u);
    EXPECT_EQ(info(StreamKernel::scale).bytes_per_element(), 16u);
    EXPECT_EQ(info(StreamKernel::add).bytes_per_element(), 24u);
    EXPECT_EQ(info(StreamKernel::triad).bytes_per_element(), 24u);
    EXPECT_EQ(info(StreamKernel::dot).bytes_per_element(), 16u);
    EXPECT_EQ(info(StreamKernel::triad).flops_per_element, 2);
}

TEST(StreamTable, RatesAreDerivedFromTheTable) {
    // 1e9 elements of triad (24 B each) in 2 s = 12 GB/s.
    EXPECT_DOUBLE_EQ(gigabytes_per_second(StreamKernel::triad, 1'000'000'000, 2.0), 12.0);
    EXPECT_DOUBLE_EQ(gigabytes_per_second(StreamKernel::copy, 1'000'000'000, 2.0), 8.0);
}

TEST(StreamGold, OneRepetitionInClosedForm) {
    const StreamGold gold = stream_gold(1, 10);
    // c = a = 0.1; b = 0.4 c = 0.04; c = a + b = 0.14; a = b + 0.4 c = 0.096
    EXPECT_DOUBLE_EQ(gold.c, 0.14);
    EXPECT_DOUBLE_EQ(gold.b, 0.04);
    EXPECT_DOUBLE_EQ(gold.a, 0.096);
    EXPECT_DOUBLE_EQ(gold.dot, 0.096 * 0.04 * 10);
}

TEST(StreamGold, EachRepetitionScalesByTheSameFactor) {
    // a -> 0.96 a per repetition: the values stay well inside double range for any count.
    EXPECT_NEAR(stream_gold(20, 1).a, 0.1 * std::pow(0.96, 20), 1e-15);
}

TEST(StreamGold, FailureTextNamesKernelElementAndError) {
    StreamArrayCheck check;
    check.mismatches = 1;
    check.first.push_back({42, -1.0});
    const std::string text = describe_failure(StreamArray::a, 0.5, check);
    EXPECT_NE(text.find("triad wrote wrong values into a"), std::string::npos) << text;
    EXPECT_NE(text.find("a[42] = -1"), std::string::npos) << text;
    EXPECT_NE(text.find("relative error 3"), std::string::npos) << text;
}

TEST(StreamGold, TolerancesAreTightButAboveRounding) {
    EXPECT_LE(stream_element_tolerance(20), 1e-12);
    EXPECT_GE(stream_dot_tolerance(1u << 29), 1u * (1u << 29) * 2.2e-16 * 0.99);
}

}  // namespace
}  // namespace shakedown::kernels
