// The RDMA family through the driver's path (execute_test) under mpirun: ucx_perf for real
// (shared memory / TCP here), the verbs tests' waiver on a node without an RDMA device, and
// bad input refused before any work.
#include "support/mpi_world.hpp"
#include "support/result_lookup.hpp"
#include "support/run_test.hpp"

#include "core/errors.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>

namespace shakedown::testing {
namespace {

const std::string tiny_ucx =
    "params: {ucx_perf: {min_bytes: 8, max_bytes: 65536, size_factor: 16, latency_iterations: 50, latency_warmup: 5, "
    "bw_iterations: 16, window: 4, timeout_s: 10}}\n";

TEST(UcxPerf, TagPutGetAcrossTheLocalPairAreValidatedAndNameTheirTransports) {
    const auto result = run_registered_test("ucx_perf", tiny_ucx);
    EXPECT_EQ(result.status, Status::pass) << result.reason;
    EXPECT_EQ(result.parameters.at("pairs_run"), "0-1 (intra-node)");
    if (world_rank() > 1) {
        EXPECT_TRUE(result.samples.empty());
        return;
    }
    EXPECT_EQ(result.samples.size(), 15u);  // tag, put, get x 8, 128, 2048, 32768, 65536 B
    EXPECT_FALSE(result.parameters.at("transports").empty());
    EXPECT_FALSE(result.parameters.at("ucx_version").empty());
    for (const auto* op : {"tag", "put", "get"}) {
        for (const auto* quantity : {"latency_us", "latency_p99_us", "bandwidth_gbs", "message_rate_mps"}) {
            const auto name = fmt::format("ucx_perf.{}_{}", op, quantity);
            const auto value = metric(result, name);
            ASSERT_TRUE(value.has_value()) << name;
            EXPECT_GT(*value, 0.0) << name;
        }
        EXPECT_GE(*metric(result, fmt::format("ucx_perf.{}_latency_p99_us", op)), *metric(result, fmt::format("ucx_perf.{}_latency_us", op)));
    }
}

TEST(UcxPerf, PlantedCorruptionFails) {
    const auto result = run_registered_test("ucx_perf", tiny_ucx + "faults: [{kind: corrupt, test: ucx_perf, rank: 0}]\n");
    if (world_rank() > 1) return;
    EXPECT_EQ(result.status, Status::fail);
    // Rank 0 provides tag pings and put data; rank 1 catches them, and each side names the other's finds.
    EXPECT_NE(result.reason.find("payload mismatch in UCX tag latency 8 B, message 0: byte 0"), std::string::npos) << result.reason;
}

TEST(VerbsTests, WaiveWithoutAnRdmaDevice) {
    for (const auto* key : {"ib_inventory", "ib_perf", "gpudirect_rdma"}) {
        const auto result = run_registered_test(key);
        EXPECT_EQ(result.status, Status::waived) << key;
        EXPECT_EQ(result.reason.rfind("no RDMA device", 0), 0u) << key << ": " << result.reason;
    }
}

TEST(RdmaBadInput, ValueChecksNameTheValidRange) {
    EXPECT_EQ(input_error_of("ib_perf", "params: {ib_perf: {port: 300}}\n"),
              "test-config:1: 'params.ib_perf.port' must be between 1 and 255, got 300");
    EXPECT_EQ(input_error_of("ib_perf", "params: {ib_perf: {gid_index: -7}}\n"),
              "test-config:1: 'params.ib_perf.gid_index' must be between 0 and 65535, got -7");
    EXPECT_EQ(input_error_of("ib_perf", "params: {ib_perf: {operations: \"write,atomic\"}}\n"),
              "test-config:1: 'params.ib_perf.operations' unknown value 'atomic' (known: write, read, send)");
    EXPECT_EQ(input_error_of("ib_perf", "params: {ib_perf: {min_bytes: 1}}\n"),
              "test-config:1: 'params.ib_perf.min_bytes' must be between 2 and 1073741824, got 1");
    EXPECT_EQ(input_error_of("gpudirect_rdma", "params: {gpudirect_rdma: {port: 256}}\n"),
              "test-config:1: 'params.gpudirect_rdma.port' must be between 1 and 255, got 256");
    EXPECT_EQ(input_error_of("ib_inventory", "params: {ib_inventory: {expected_mtu: 1500}}\n"),
              "ib_inventory: parameter 'expected_mtu' must be auto or one of 256, 512, 1024, 2048, 4096, got 1500");
    EXPECT_EQ(input_error_of("ucx_perf", "params: {ucx_perf: {min_bytes: 4096, max_bytes: 8}}\n"),
              "ucx_perf: size range is upside down: min_bytes 4096 > max_bytes 8");
}

}  // namespace
}  // namespace shakedown::testing
