// Without a GPU the GPU tests must say so, never pass silently.
#include "mpi_test_helpers.hpp"
#include "support/run_test.hpp"

#include <gtest/gtest.h>

namespace shakedown::testing {
namespace {

TEST(GpuTestsWithoutAGpu, NcclIsWaivedForNoCudaDevice) {
    const auto result = run_registered_test("nccl", "params: {nccl: {max_bytes: 1024}}\n");
    EXPECT_EQ(result.status, Status::waived);
#ifdef SHAKEDOWN_TEST_HAVE_NCCL
    EXPECT_EQ(result.reason, "no CUDA device");
#else
    EXPECT_EQ(result.reason, "shakedown was built without NCCL (SHAKEDOWN_WITH_NCCL / CUDA not found)");
#endif
}

TEST(GpuTestsWithoutAGpu, GpuAwareMpiIsWaivedWithTheReason) {
    const auto result = run_registered_test("gpu_aware_mpi");
    EXPECT_EQ(result.status, Status::waived);
#ifdef SHAKEDOWN_TEST_HAVE_CUDA
    EXPECT_EQ(result.reason, "no CUDA device");
#else
    EXPECT_EQ(result.reason, "shakedown was built without CUDA");
#endif
}

}  // namespace
}  // namespace shakedown::testing
