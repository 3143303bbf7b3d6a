// `dgemm_fp64` through the driver's path on 1, 2 and 4 ranks with small matrices.
#include "support/mpi_world.hpp"
#include "support/result_lookup.hpp"
#include "support/run_test.hpp"

#include "core/errors.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>

#include <sched.h>

namespace shakedown::testing {
namespace {

const std::string small = "params: {dgemm_fp64: {device: host, n: 96, repetitions: 3}}\n";

// One core's measured FMA peak beside the derived per-core figure.
void check_core_peak(const TestResult& result, const Metric* peak) {
    ASSERT_TRUE(peak);
    EXPECT_GT(peak->value, 0.5);
    ASSERT_TRUE(peak->nominal);
    EXPECT_NEAR(*peak->nominal, 32.0, 1e-9);
    EXPECT_NE(result.parameters.at("core_peak_detail").find("derived per core: 32.0 GFLOP/s (2000 MHz x 16 FLOP/cycle)"),
              std::string::npos)
        << result.parameters.at("core_peak_detail");
}

const nlohmann::json small_inventory = {
    {"cpu", {{"cores", 4}, {"max_mhz", 2000.0}, {"flags", {"sse2", "avx", "avx2", "fma"}}}},
    {"blas", {{"library", "openblas"}, {"openblas_core", "Prescott"}}}};

// This rank's share of the node: the node's cores shared by the ranks on it, at most the CPUs
// mpirun bound it to.
double node_share() {
    cpu_set_t bound;
    if (sched_getaffinity(0, sizeof bound, &bound) != 0) return 0.0;
    return std::min(4.0 / world_size(), static_cast<double>(CPU_COUNT(&bound))) / 4.0;
}

TEST(DgemmFp64, SmallHostRunValidatesAgainstTheCoresMeasuredPeak) {
    const TestResult result = run_registered_test("dgemm_fp64", small, small_inventory);
    ASSERT_EQ(result.status, Status::pass) << result.reason;
    EXPECT_EQ(result.parameters.at("device"), "host");
    EXPECT_EQ(result.parameters.at("backend"), "kokkos-blas");
    EXPECT_EQ(result.parameters.at("n_used"), "96");
    EXPECT_EQ(result.parameters.at("openblas_core"), "Prescott");
    // The reference is what this rank's cores measured at the BLAS kernel's width, all ranks at
    // once; the derived datasheet-style figure (4 cores x 2 GHz x 16 FLOP/cycle = 128 GFLOP/s per
    // node, this rank's share of it) is named beside it.
    EXPECT_EQ(result.parameters.at("nominal_source"), "measured");
    const std::string& detail = result.parameters.at("nominal_detail");
    EXPECT_NE(detail.find(fmt::format("derived {:.1f} GFLOP/s", 128.0 * node_share())), std::string::npos) << detail;
    EXPECT_NE(detail.find("every host rank of the node at once"), std::string::npos) << detail;
    EXPECT_FALSE(result.parameters.at("blas_kernel_fit").empty());
    const auto median = find_metric(result, "dgemm_fp64.tflops");
    ASSERT_TRUE(median && median->nominal);
    const double expected_nominal = *median->nominal;
    EXPECT_GT(expected_nominal, 0.5e-3);  // a core of the last 20 years: > 0.5 GFLOP/s
    EXPECT_LT(expected_nominal, 0.4);     // none: 400 GFLOP/s
    for (const std::string name : {"dgemm_fp64.tflops", "dgemm_fp64.tflops_max", "dgemm_fp64.tflops_min"}) {
        const auto metric = find_metric(result, name);
        ASSERT_TRUE(metric) << name;
        EXPECT_GT(metric->value, 1e-5) << name;  // > 10 MFLOP/s even on a loaded core
        EXPECT_LT(metric->value, 10.0) << name;  // no core does 10 TFLOP/s
        ASSERT_TRUE(metric->nominal) << name;
        EXPECT_NEAR(*metric->nominal, expected_nominal, 1e-12) << name;
    }
    EXPECT_LE(find_metric(result, "dgemm_fp64.tflops_min")->value, find_metric(result, "dgemm_fp64.tflops")->value);
    // One core's measured FMA peak beside the derived per-core figure (2 GHz x 16 FLOP/cycle),
    // measured by the node's first host rank alone.
    const auto peak = find_metric(result, "dgemm_fp64.core_peak_gflops");
    if (world_rank() != 0) {
        EXPECT_FALSE(peak) << "only one rank per node measures the core peak";
    } else {
        check_core_peak(result, peak);
    }
    EXPECT_GE(find_metric(result, "dgemm_fp64.tflops_max")->value, find_metric(result, "dgemm_fp64.tflops")->value);
    EXPECT_EQ(result.samples.size(), 3u);
}

TEST(DgemmFp64, AConfiguredNodeNominalIsSharedByTheRanksOnTheNode) {
    const TestResult result = run_registered_test(
        "dgemm_fp64", "params: {dgemm_fp64: {device: host, n: 96, repetitions: 2, nominal_tflops: 0.2}}\n", small_inventory);
    ASSERT_EQ(result.status, Status::pass) << result.reason;
    EXPECT_EQ(result.parameters.at("nominal_source"), "config");
    const auto median = find_metric(result, "dgemm_fp64.tflops");
    ASSERT_TRUE(median && median->nominal);
    EXPECT_NEAR(*median->nominal, 0.2 * node_share(), 1e-12);
}

TEST(DgemmFp64, AutomaticSizeIsAgreedAndAimsAtTheTarget) {
    const TestResult result =
        run_registered_test("dgemm_fp64", "params: {dgemm_fp64: {device: host, min_rep_s: 0.02, repetitions: 3}}\n");
    ASSERT_EQ(result.status, Status::pass) << result.reason;
    const unsigned long n = std::stoul(result.parameters.at("n_used"));
    EXPECT_GE(n, 256u);
    EXPECT_EQ(n % 64, 0u);
    unsigned long smallest = 0, largest = 0;  // every rank multiplies the same size
    MPI_Allreduce(&n, &smallest, 1, MPI_UNSIGNED_LONG, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&n, &largest, 1, MPI_UNSIGNED_LONG, MPI_MAX, MPI_COMM_WORLD);
    EXPECT_EQ(smallest, largest);
    // Timing on a shared, oversubscribed machine is noisy: only a gross miss is a failure.
    const auto seconds = result.samples.column("seconds");
    EXPECT_GT(*std::max_element(seconds.begin(), seconds.end()), 0.002);
}

TEST(DgemmFp64, SmallIntegerFillValidatesAndBadFillIsAnInputError) {
    const TestResult result =
        run_registered_test("dgemm_fp64", "params: {dgemm_fp64: {device: host, n: 96, repetitions: 2, fill: small_integers}}\n");
    ASSERT_EQ(result.status, Status::pass) << result.reason;
    EXPECT_EQ(result.parameters.at("fill"), "small_integers");
    EXPECT_EQ(run_registered_test("dgemm_fp64", small).parameters.at("fill"), "uniform");
    expect_refused("dgemm_fp64", "params: {dgemm_fp64: {device: host, fill: ones}}\n",
                   "'params.dgemm_fp64.fill' unknown value 'ones' (known: uniform, small_integers)");
}

TEST(DgemmFp64, PlantedCorruptionFailsNamingTheElement) {
    const TestResult result =
        run_registered_test("dgemm_fp64", small + "faults: [{kind: corrupt, test: dgemm_fp64, rank: 0}]\n");
    if (world_rank() == 0) {
        ASSERT_EQ(result.status, Status::fail);
        EXPECT_NE(result.reason.find("wrong product: C(32, 48) ="), std::string::npos) << result.reason;
        EXPECT_NE(result.reason.find("1 row(s) and 1 column(s)"), std::string::npos) << result.reason;
    } else {
        EXPECT_EQ(result.status, Status::pass) << result.reason;
    }
}

// Values wrong in themselves are refused before any work (the driver's exit 2, no run
// folder); a size too big for this node's memory can only be known on the node: an error
// result naming the largest order that fits.
TEST(DgemmFp64, ImpossibleSizesAreClearErrors) {
    expect_refused("dgemm_fp64", "params: {dgemm_fp64: {device: host, n: -5}}\n",
                   "'params.dgemm_fp64.n' must be between 1 and 1048576, got -5");
    expect_refused("dgemm_fp64", "params: {dgemm_fp64: {repetitions: -1}}\n",
                   "'params.dgemm_fp64.repetitions' must be at least 1, got -1");
    expect_refused("dgemm_fp64", "params: {dgemm_fp64: {min_rep_s: 0}}\n", "'params.dgemm_fp64.min_rep_s' must be above 0 and at most 2592000, got 0");
    expect_refused("dgemm_fp64", "params: {dgemm_fp64: {device: fpga}}\n",
                   "'params.dgemm_fp64.device' unknown value 'fpga' (known: auto, host, gpu)");
    const auto huge = run_registered_test("dgemm_fp64", "params: {dgemm_fp64: {device: host, n: 1000000}}\n");
    EXPECT_EQ(huge.status, Status::error);
    EXPECT_TRUE(huge.bad_input);  // the driver's exit 2, after the run
    EXPECT_NE(huge.reason.find("fits here"), std::string::npos) << huge.reason;
}

TEST(DgemmFp64, GpuRequestWaivesWithoutCudaDevice) {
    const TestResult result = run_registered_test("dgemm_fp64", "params: {dgemm_fp64: {device: gpu}}\n");
    EXPECT_EQ(result.status, Status::waived);
    EXPECT_EQ(result.reason, "no CUDA device");
}

}  // namespace
}  // namespace shakedown::testing
