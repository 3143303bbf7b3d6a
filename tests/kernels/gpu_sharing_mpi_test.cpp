// One rank per GPU for the kernels: a rank bound to a GPU another rank owns waives stream,
// dgemm_fp64, stencil3d and gemm_ladder, naming the owner (tests/support/gpu_sharing.hpp).
#include "support/gpu_sharing.hpp"

#include <gtest/gtest.h>

namespace shakedown::testing {
namespace {

TEST(GpuSharing, KernelsWaiveOnARankWhoseGpuAnotherOwns) {
    expect_one_rank_per_gpu({"stream", "dgemm_fp64", "stencil3d", "gemm_ladder"});
}

}  // namespace
}  // namespace shakedown::testing
