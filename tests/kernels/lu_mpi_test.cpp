// `lu_fp64` on the host through the driver's path on 1, 2 and 4 ranks: one ScaLAPACK LU over
// all of them validates (HPL's scaled residual below 16), a planted corruption of one element of
// the factor is caught naming the residual, and a grid or an n that cannot be is refused first.
#include "support/mpi_world.hpp"
#include "support/result_lookup.hpp"
#include "support/run_test.hpp"

#include "kernels/lu/lu_engine.hpp"

#include <gtest/gtest.h>

namespace shakedown::testing {
namespace {

const std::string small = "params: {lu_fp64: {device: host, n: 200, block: 16, repetitions: 2}}\n";

TEST(LuFp64, HostLuOverEveryRankValidates) {
    if (!kernels::lu::host_lu_built()) GTEST_SKIP() << "built without ScaLAPACK";
    const TestResult result = run_registered_test("lu_fp64", small);
    ASSERT_EQ(result.status, Status::pass) << result.reason;
    const auto residual = find_metric(result, "lu_fp64.scaled_residual");
    ASSERT_TRUE(residual);
    EXPECT_GE(residual->value, 0.0);
    EXPECT_LT(residual->value, 16.0);
    const auto rate = find_metric(result, "lu_fp64.tflops");
    ASSERT_TRUE(rate);
    EXPECT_GT(rate->value, 1e-6);
    EXPECT_LT(rate->value, 10.0);
    EXPECT_EQ(result.parameters.at("n_used"), "200");
    const std::string grid = world_size() == 4 ? "2x2" : world_size() == 2 ? "1x2" : "1x1";
    EXPECT_EQ(result.parameters.at("grid_used"), grid);
    EXPECT_EQ(result.parameters.at("backend"), "scalapack " + grid + ", block 16");
    EXPECT_EQ(result.samples.size(), 2u);
}

TEST(LuFp64, ACorruptedFactorIsCaughtNamingTheResidual) {
    if (!kernels::lu::host_lu_built()) GTEST_SKIP() << "built without ScaLAPACK";
    const TestResult result = run_registered_test(
        "lu_fp64", small + "faults: [{kind: corrupt, test: lu_fp64, rank: " + std::to_string(world_size() - 1) + "}]\n");
    EXPECT_EQ(result.status, Status::fail);
    EXPECT_NE(result.reason.find("lu_fp64: wrong solution in repetition 0: scaled residual"), std::string::npos)
        << result.reason;
    EXPECT_NE(result.reason.find("HPL's limit 16"), std::string::npos) << result.reason;
    EXPECT_GE(find_metric(result, "lu_fp64.scaled_residual")->value, 16.0);
}

TEST(LuFp64, AGridThatDoesNotHoldTheRanksOrAnNThatDoesNotFitIsRefusedFirst) {
    EXPECT_EQ(input_error_of("lu_fp64", "params: {lu_fp64: {device: host, grid: 3x3}}\n"),
              "lu_fp64: grid 3x3 holds 9 ranks, the job has " + std::to_string(world_size()) +
                  ": the process grid must use every rank exactly once");
    EXPECT_EQ(input_error_of("lu_fp64", "params: {lu_fp64: {device: host, grid: 2by2}}\n"),
              "lu_fp64: grid '2by2' is not PxQ (e.g. 2x4) or auto");
    if (!kernels::lu::host_lu_built()) return;
    // Memory is the node's to judge: an error and the driver's exit 2, after the run.
    const TestResult huge = run_registered_test("lu_fp64", "params: {lu_fp64: {device: host, n: 1000000, memory_fraction: 0.01}}\n");
    EXPECT_EQ(huge.status, Status::error);
    EXPECT_TRUE(huge.bad_input);
    EXPECT_EQ(huge.reason.rfind("lu_fp64: n=1000000 needs 7450.6 GiB for the matrix; memory_fraction 0.01 allows at "
                                "most n=", 0),
              0u) << huge.reason;
}

}  // namespace
}  // namespace shakedown::testing
