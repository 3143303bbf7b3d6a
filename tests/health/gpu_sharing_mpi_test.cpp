// One rank per GPU for the health tests: h2d_bandwidth and burnin waive on a rank whose GPU
// another rank owns (tests/support/gpu_sharing.hpp).
#include "support/gpu_sharing.hpp"

#include <gtest/gtest.h>

namespace shakedown::testing {
namespace {

TEST(GpuSharing, HealthGpuTestsWaiveOnARankWhoseGpuAnotherOwns) { expect_one_rank_per_gpu({"h2d_bandwidth", "burnin"}); }

}  // namespace
}  // namespace shakedown::testing
