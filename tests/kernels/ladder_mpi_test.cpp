// `gemm_ladder` through the driver's path.
#include "support/mpi_world.hpp"
#include "support/result_lookup.hpp"
#include "support/run_test.hpp"

#include "core/errors.hpp"

#include <gtest/gtest.h>

namespace shakedown::testing {
namespace {

// The GPU ladder has no host path: on a node without a CUDA device it waives, never passes.
TEST(GemmLadder, WaivesWithoutCudaDevice) {
    const TestResult result = run_registered_test("gemm_ladder");
    EXPECT_EQ(result.status, Status::waived);
    EXPECT_EQ(result.reason, "no CUDA device");
    EXPECT_TRUE(result.metrics.empty());
}

// A bad config is refused before any work even where the ladder would be waived: an unknown
// precision must not pass silently on a GPU-less node.
TEST(GemmLadder, BadValuesAreInputErrorsEvenWithoutCudaDevice) {
    expect_refused("gemm_ladder", "params: {gemm_ladder: {precisions: \"fp64,fp7\"}}\n", "'params.gemm_ladder.precisions' unknown value 'fp7' (known: fp64, fp64_emulated, fp32, fp32_emulated, tf32, bf16, fp16, fp8)");
    expect_refused("gemm_ladder", "params: {gemm_ladder: {n: 8}}\n", "'params.gemm_ladder.n' must be between 16 and 1048576, got 8");
    expect_refused("gemm_ladder", "params: {gemm_ladder: {autotune_candidates: 17}}\n", "'params.gemm_ladder.autotune_candidates' must be between 0 and 16, got 17");
    expect_refused("gemm_ladder", "params: {gemm_ladder: {fp64_emulation_mantissa_bits: 4}}\n",
                   "'params.gemm_ladder.fp64_emulation_mantissa_bits' must be between 8 and 64, got 4");
    expect_refused("gemm_ladder", "params: {gemm_ladder: {fp64_emulation_mantissa_bits: full}}\n",
                   "'params.gemm_ladder.fp64_emulation_mantissa_bits' must be a whole number, not 'full'");
    expect_refused("gemm_ladder", "params: {gemm_ladder: {emulated_n: 8}}\n", "'params.gemm_ladder.emulated_n' must be between 16 and 1048576, got 8");
}

}  // namespace
}  // namespace shakedown::testing
