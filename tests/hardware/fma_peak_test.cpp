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

}  // namespace
}  // namespace shakedown::hardware
