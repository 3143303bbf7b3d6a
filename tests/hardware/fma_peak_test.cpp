// The FMA peak microkernel: a real rate in a real core's range, with the instruction set the CPU
// has. (A folded or hoisted loop reads thousands of times the core's peak: the upper bound.)
#include "hardware/fma_peak.hpp"

#include <gtest/gtest.h>

namespace shakedown::hardware {
namespace {

TEST(FmaPeak, OneCoreMeasuresAPlausibleRate) {
    const FmaPeak peak = measure_fma_peak(0.05);
    EXPECT_FALSE(peak.instructions.empty());
    EXPECT_GT(peak.flops_per_instruction, 0);
    // Any core of the last 20 years does more than 0.5 GFLOP/s; none does 400 (8 GHz x 2 AVX-512 FMA units x 16).
    EXPECT_GT(peak.gflops, 0.5);
    EXPECT_LT(peak.gflops, 400.0);
}

TEST(FmaPeak, ANarrowerWidthIsMeasuredAtThatWidth) {
    const FmaPeak sse2 = measure_fma_peak(0.05, VectorIsa::sse2);
    EXPECT_EQ(sse2.instructions, "sse2");
    EXPECT_EQ(sse2.flops_per_instruction, 4);
    EXPECT_GT(sse2.gflops, 0.5);
    EXPECT_LT(sse2.gflops, fma_peak_ceiling_gflops(sse2));
}

TEST(FmaPeak, SeveralThreadsAddTheirRates) {
    const FmaPeak one = measure_fma_peak_on_threads(0.06, std::nullopt, 1);
    const FmaPeak two = measure_fma_peak_on_threads(0.06, std::nullopt, 2);
    EXPECT_EQ(one.instructions, two.instructions);
    // Two threads on however many cores this machine gives: at least about one core's rate, at
    // most two cores' (a loaded CI machine may time-share them).
    EXPECT_GT(two.gflops, 0.5 * one.gflops);
    EXPECT_LT(two.gflops, 2.0 * fma_peak_ceiling_gflops(two));
}

}  // namespace
}  // namespace shakedown::hardware
