// The STREAM table and gold values, without running anything.
#include "kernels/stream/stream_kernels.hpp"
#include "kernels/stream/stream_launch.hpp"

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

TEST(StreamLaunchTable, EveryKernelHasALaunchableRow) {
    for (const auto& kernel : stream_kernel_table) {
        const StreamLaunchShape& shape = launch_shape(kernel.id);
        EXPECT_EQ(launch_shape_problem(shape), "") << kernel.name;
    }
    // The dot's partial sums are finished on the host: its grid must be a fixed, small one.
    EXPECT_GT(launch_shape(StreamKernel::dot).blocks_per_sm, 0);
}

TEST(StreamLaunchTable, BlocksCoverTheArrayOrFollowTheSmCount) {
    const StreamLaunchShape cover{StreamKernel::copy, 256, 2, 1, 0};
    EXPECT_EQ(launch_blocks(cover, std::size_t{1} << 29, 132), (std::size_t{1} << 28) / 256);
    // Odd length: 500001 full double2 (the last element is block 0's scalar tail), 1954 blocks.
    EXPECT_EQ(launch_blocks(cover, 1000003, 132), 1954u);
    EXPECT_EQ(launch_blocks(cover, 1, 132), 1u);  // nothing but a tail still launches one block
    const StreamLaunchShape two_per_thread{StreamKernel::triad, 512, 2, 2, 0};
    EXPECT_EQ(launch_blocks(two_per_thread, std::size_t{1} << 29, 132), (std::size_t{1} << 28) / 1024);
    const StreamLaunchShape stride{StreamKernel::dot, 1024, 2, 1, 4};
    EXPECT_EQ(launch_blocks(stride, std::size_t{1} << 29, 132), 528u);
    EXPECT_EQ(describe(stride, std::size_t{1} << 29, 132),
              "1024 threads/block, double2 loads, grid-stride over 4 blocks/SM (528 blocks)");
    EXPECT_EQ(describe(cover, std::size_t{1} << 29, 132),
              "256 threads/block, double2 x1 per thread, grid covers the array (1048576 blocks)");
}

TEST(StreamLaunchTable, RowsTheBackendCannotLaunchSayWhy) {
    EXPECT_NE(launch_shape_problem({StreamKernel::dot, 1024, 2, 1, 0}).find("dot needs a fixed grid"), std::string::npos);
    EXPECT_NE(launch_shape_problem({StreamKernel::copy, 100, 2, 1, 0}).find("multiple of 32"), std::string::npos);
    EXPECT_NE(launch_shape_problem({StreamKernel::copy, 256, 4, 1, 0}).find("vector_width 4"), std::string::npos);
    EXPECT_NE(launch_shape_problem({StreamKernel::add, 256, 2, 2, 4}).find("one vector per thread"), std::string::npos);
}

}  // namespace
}  // namespace shakedown::kernels
