// Manual check of the quick suite's default sizes on this machine (how long each kernel
// test takes, what it measures). Disabled in CI; run with
//   mpirun -np 2 kernels_mpi_tests --gtest_also_run_disabled_tests --gtest_filter='*DefaultSizes*'
#include "support/mpi_world.hpp"
#include "support/result_lookup.hpp"
#include "support/run_test.hpp"

#include <gtest/gtest.h>

#include <cstdio>

namespace shakedown::testing {
namespace {

class DefaultSizes : public ::testing::TestWithParam<std::string> {};

TEST_P(DefaultSizes, DISABLED_HostRunInTheQuickSuite) {
    const std::string key = GetParam();
    const TestResult result = run_registered_test(key, "params: {" + key + ": {device: host}}\n");
    ASSERT_EQ(result.status, Status::pass) << result.reason;
    for (const auto& metric : result.metrics)
        std::printf("rank %d %s = %.4g %s\n", world_rank(), metric.name.c_str(), metric.value, metric.unit.c_str());
    for (const auto& [name, value] : result.parameters) std::printf("rank %d   %s: %s\n", world_rank(), name.c_str(), value.c_str());
    std::printf("rank %d %s took %.2f s\n", world_rank(), key.c_str(), result.end_utc - result.start_utc);
}

INSTANTIATE_TEST_SUITE_P(Kernels, DefaultSizes, ::testing::Values("stream", "dgemm_fp64", "stencil3d", "cg_fp64"));

}  // namespace
}  // namespace shakedown::testing
