// Without a GPU the GPU tests must say so, never pass silently.
#include "support/mpi_world.hpp"
#include "support/result_lookup.hpp"
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

// A bad value is refused on every rank before any work, also where the test would be waived:
// a GPU-less login node must not pass a config that would fail on the GPU nodes.
TEST(GpuTestsWithoutAGpu, BadValuesAreRefusedThoughTheTestIsWaived) {
#ifdef SHAKEDOWN_TEST_HAVE_NCCL
    // max_bytes 0 (the suite's top, known only at run time) leaves min_bytes still checked.
    expect_refused("nccl", "params: {nccl: {min_bytes: -7}}\n", "'params.nccl.min_bytes' must be between 0 and 68719476736, got -7");
    expect_refused("nccl", "params: {nccl: {step_factor: 1}}\n", "'params.nccl.step_factor' must be between 2 and 1024, got 1");
#endif
#ifdef SHAKEDOWN_TEST_HAVE_CUDA
    expect_refused("gpu_aware_mpi", "params: {gpu_aware_mpi: {iterations_small: 0}}\n",
                   "'params.gpu_aware_mpi.iterations_small' must be between 1 and 100000000, got 0");
    expect_refused("gpu_aware_mpi", "params: {gpu_aware_mpi: {sizes: \"8,lots\"}}\n", "'params.gpu_aware_mpi.sizes' must be a whole number, not 'lots'");
#endif
}

}  // namespace
}  // namespace shakedown::testing
