// sdc_dgemm through the driver's path (execute_test) on 2 and 4 ranks of this machine, on the host
// BLAS (this machine has no GPU; the cuBLAS path compiles here and runs on the GPU host): the same
// product repeats bit for bit and the node's ranks agree; a planted flipped bit in one rank's
// second result FAILs that rank, naming it and its device, and only it; device: gpu waives.
#include "support/mpi_world.hpp"
#include "support/result_lookup.hpp"
#include "support/run_test.hpp"

#include "inventory/inventory.hpp"

#include <gtest/gtest.h>

namespace shakedown::testing {
namespace {

const std::string host_sdc = "params: {sdc_dgemm: {device: host, n: 96}}\n";

const nlohmann::json& this_inventory() {
    static const nlohmann::json inventory = collect_inventory();
    return inventory;
}

TEST(SdcDgemm, HostProductRepeatsBitForBitAndTheNodeAgrees) {
    const TestResult result = run_registered_test("sdc_dgemm", host_sdc, this_inventory());
    ASSERT_EQ(result.status, Status::pass) << result.reason;
    EXPECT_EQ(result.parameters.at("n"), "96");
    EXPECT_EQ(result.parameters.at("device_used"), "host");
    EXPECT_EQ(metric(result, "sdc_dgemm.mismatched_elements"), std::optional(0.0));
    EXPECT_EQ(metric(result, "sdc_dgemm.node_disagreements"), std::optional(0.0));
    EXPECT_GT(metric(result, "sdc_dgemm.seconds").value_or(0.0), 0.0);
    EXPECT_EQ(result.samples.size(), 2u);
}

TEST(SdcDgemm, PlantedFlippedBitFailsNamingTheRank) {
    const TestResult result =
        run_registered_test("sdc_dgemm", host_sdc + "faults: [{kind: corrupt, test: sdc_dgemm, rank: 1}]\n", this_inventory());
    if (world_rank() == 1) {
        ASSERT_EQ(result.status, Status::fail);
        EXPECT_NE(result.reason.find("sdc_dgemm: rank 1 (host): the same product differs between two runs in 1 of 9216 elements"),
                  std::string::npos)
            << result.reason;
        EXPECT_EQ(metric(result, "sdc_dgemm.mismatched_elements"), std::optional(1.0));
    } else {
        // The planted rank is not compared with the others: the healthy ones still agree.
        EXPECT_EQ(result.status, Status::pass) << result.reason;
        EXPECT_EQ(metric(result, "sdc_dgemm.node_disagreements"), std::optional(0.0));
    }
}

TEST(SdcDgemm, GpuRequestedWithoutOneIsWaived) {
    const TestResult result = run_registered_test("sdc_dgemm", "params: {sdc_dgemm: {device: gpu}}\n", this_inventory());
    EXPECT_EQ(result.status, Status::waived);
    EXPECT_EQ(result.reason, "no CUDA device");
}

}  // namespace
}  // namespace shakedown::testing
