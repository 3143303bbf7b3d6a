// `gemm_ladder` through the driver's path.
#include "kernel_test_support.hpp"
#include "support/run_test.hpp"

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

}  // namespace
}  // namespace shakedown::testing
