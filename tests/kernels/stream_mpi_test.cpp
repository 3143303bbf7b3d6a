// `stream` through the driver's path on 1, 2 and 4 ranks with tiny arrays: it validates,
// its rates are sane, a planted corruption fails with the element named, bad parameters
// are errors that say what is wrong, and a GPU request waives on a node without one.
#include "support/mpi_world.hpp"
#include "support/result_lookup.hpp"
#include "support/run_test.hpp"

#include <gtest/gtest.h>

namespace shakedown::testing {
namespace {

const std::string tiny = "params: {stream: {device: host, array_mib: 1, repetitions: 3}}\n";

TEST(Stream, TinyHostRunValidatesWithSaneRates) {
    const TestResult result = run_registered_test("stream", tiny);
    ASSERT_EQ(result.status, Status::pass) << result.reason;
    EXPECT_EQ(result.parameters.at("device"), "host");
    EXPECT_EQ(result.parameters.at("backend").rfind("kokkos-", 0), 0u) << result.parameters.at("backend");
    EXPECT_EQ(result.parameters.at("elements"), std::to_string(1024 * 1024 / 8));
    for (const std::string kernel : {"copy", "scale", "add", "triad", "dot"}) {
        const auto median = find_metric(result, "stream." + kernel + "_gbs");
        const auto best = find_metric(result, "stream." + kernel + "_max_gbs");
        ASSERT_TRUE(median && best) << kernel;
        EXPECT_GT(median->value, 0.05) << kernel;   // even a loaded, oversubscribed core
        EXPECT_LT(median->value, 2000.0) << kernel; // no host moves 2 TB/s per rank
        EXPECT_GE(best->value, median->value) << kernel;
        EXPECT_EQ(median->unit, "GB/s");
        EXPECT_FALSE(median->nominal.has_value());  // no nominal_gbs configured
    }
    ASSERT_EQ(result.samples.size(), 5u * 3u);
    const auto gbs = result.samples.column("gbs");
    for (const double value : gbs) EXPECT_GT(value, 0.0);
}

TEST(Stream, ConfiguredNominalIsSharedByTheNodesRanks) {
    const TestResult result =
        run_registered_test("stream", "params: {stream: {device: host, array_mib: 1, repetitions: 2, nominal_gbs: 100}}\n");
    ASSERT_EQ(result.status, Status::pass) << result.reason;
    const auto triad = find_metric(result, "stream.triad_gbs");
    ASSERT_TRUE(triad && triad->nominal);
    EXPECT_DOUBLE_EQ(*triad->nominal, 100.0 / world_size());  // all test ranks share this one node
}

TEST(Stream, PlantedCorruptionFailsNamingKernelAndElement) {
    const TestResult result =
        run_registered_test("stream", tiny + "faults: [{kind: corrupt, test: stream, rank: 0}]\n");
    if (world_rank() == 0) {
        ASSERT_EQ(result.status, Status::fail);
        const std::size_t middle = 1024 * 1024 / 8 / 2;
        EXPECT_NE(result.reason.find("triad wrote wrong values into a"), std::string::npos) << result.reason;
        EXPECT_NE(result.reason.find("a[" + std::to_string(middle) + "]"), std::string::npos) << result.reason;
        EXPECT_NE(result.reason.find("relative error"), std::string::npos) << result.reason;
        EXPECT_NE(result.reason.find("1 element(s) wrong"), std::string::npos) << result.reason;
    } else {
        EXPECT_EQ(result.status, Status::pass) << result.reason;
    }
}

TEST(Stream, OddLengthIsFullyProcessedAndValidated) {
    // Not a multiple of any vector width or block: a kernel that dropped its tail would leave the
    // last element at its start value, and a planted fault there is found by index.
    const std::string odd = "params: {stream: {device: host, array_elements: 100003, repetitions: 2}}\n";
    const TestResult result = run_registered_test("stream", odd);
    ASSERT_EQ(result.status, Status::pass) << result.reason;
    EXPECT_EQ(result.parameters.at("elements"), "100003");
    EXPECT_EQ(result.parameters.at("array_bytes"), std::to_string(100003 * 8));

    const TestResult corrupt = run_registered_test("stream", odd + "faults: [{kind: corrupt, test: stream, rank: 0}]\n");
    if (world_rank() == 0) {
        ASSERT_EQ(corrupt.status, Status::fail);
        EXPECT_NE(corrupt.reason.find("a[50001]"), std::string::npos) << corrupt.reason;
    }
}

// Values wrong in themselves are refused before any work (the driver's exit 2); a size this
// node cannot hold is an error result from the node.
TEST(Stream, ImpossibleSizesAndUnknownDevicesAreClearErrors) {
    expect_refused("stream", "params: {stream: {array_mib: -4}}\n", "'params.stream.array_mib' must be between 1 and 549755813888, got -4");
    expect_refused("stream", "params: {stream: {array_elements: -3}}\n",
                   "'params.stream.array_elements' must be between 1 and 72057594037927936, got -3");
    expect_refused("stream", "params: {stream: {repetitions: -2}}\n", "'params.stream.repetitions' must be at least 1, got -2");
    expect_refused("stream", "params: {stream: {device: host, array_elements: 4611686018427387904}}\n",
                   "'params.stream.array_elements' must be between 1 and 72057594037927936, got 4611686018427387904");
    // 2^53 MiB would wrap around 64 bits when turned into elements: refused before that.
    expect_refused("stream", "params: {stream: {array_mib: 9007199254740992}}\n",
                   "'params.stream.array_mib' must be between 1 and 549755813888, got 9007199254740992");
    expect_refused("stream", "params: {stream: {device: tpu}}\n", "'params.stream.device' unknown value 'tpu' (known: auto, host, gpu)");

    auto huge = run_registered_test("stream", "params: {stream: {device: host, array_mib: 1073741824}}\n");
    EXPECT_EQ(huge.status, Status::error);
    EXPECT_NE(huge.reason.find("GiB per rank"), std::string::npos) << huge.reason;
}

TEST(Stream, GpuRequestWaivesWithoutCudaDevice) {
    const TestResult result = run_registered_test("stream", "params: {stream: {device: gpu}}\n");
    EXPECT_EQ(result.status, Status::waived);
    EXPECT_EQ(result.reason, "no CUDA device");
}

}  // namespace
}  // namespace shakedown::testing
