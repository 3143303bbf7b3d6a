#include "support/mpi_world.hpp"
#include "support/result_lookup.hpp"
#include "support/run_test.hpp"

#include <gtest/gtest.h>

namespace shakedown::testing {
namespace {

const std::string small_pingpong =
    "params: {mpi_pingpong: {sizes: \"8,1024,65536\", iterations_small: 40, warmup_small: 4, "
    "iterations_large: 10, warmup_large: 2, batch: 10}}\n";

// On one node the only pair is the node-local one: world ranks 0 and 1.
TEST(MpiPingPong, LocalPairValidatesAndReportsLatency) {
    const auto result = run_registered_test("mpi_pingpong", small_pingpong);
    EXPECT_EQ(result.status, Status::pass) << result.reason;
    EXPECT_EQ(result.parameters.at("pairs_run"), "0-1 (intra-node)");
    if (world_rank() <= 1) {
        const auto latency = metric(result, "mpi_pingpong.latency_us");
        ASSERT_TRUE(latency.has_value());
        EXPECT_GT(*latency, 0.0);
        EXPECT_GE(*metric(result, "mpi_pingpong.latency_p99_us"), *latency);
        // 3 sizes: 40/10 + 40/10 + 10/10 batches
        EXPECT_EQ(result.samples.size(), 9u);
        for (const double peer : result.samples.column("peer")) EXPECT_EQ(peer, world_rank() == 0 ? 1.0 : 0.0);
    } else {
        EXPECT_FALSE(metric(result, "mpi_pingpong.latency_us").has_value());
        EXPECT_TRUE(result.samples.empty());
    }
    EXPECT_FALSE(metric(result, "mpi_pingpong.leader_latency_us").has_value());  // one node: no leader pair
}

TEST(MpiPingPong, PlantedCorruptionFailsNamingPairSizeIterationAndByte) {
    const auto result =
        run_registered_test("mpi_pingpong", small_pingpong + "faults: [{kind: corrupt, test: mpi_pingpong, rank: 1}]\n");
    if (world_rank() <= 1) {
        EXPECT_EQ(result.status, Status::fail);
        EXPECT_NE(result.reason.find("payload mismatch between ranks 0 and 1: 8 B message, validation message 1, byte 4, "
                                     "seen on rank 1"),
                  std::string::npos)
            << result.reason;
    } else {
        EXPECT_EQ(result.status, Status::pass) << result.reason;
    }
}

TEST(MpiPingPong, PlantedDelayShowsInTheLatency) {
    const auto result = run_registered_test(
        "mpi_pingpong", "params: {mpi_pingpong: {sizes: \"8\", iterations_small: 10, warmup_small: 1, batch: 5}}\n"
                        "faults: [{kind: delay, test: mpi_pingpong, rank: 1, seconds: 0.004}]\n");
    EXPECT_EQ(result.status, Status::pass) << result.reason;
    if (world_rank() <= 1) {
        // Rank 1 sleeps 4 ms before each echo: the half round trip is at least 2 ms.
        EXPECT_GE(*metric(result, "mpi_pingpong.latency_us"), 2000.0);
    }
}

// Refused before any work: the driver's exit 2, no run folder.
TEST(MpiPingPong, BadValuesAreRefusedBeforeAnyWork) {
    expect_refused("mpi_pingpong", "params: {mpi_pingpong: {sizes: \"8,lots\"}}\n", "'params.mpi_pingpong.sizes' must be a whole number, not 'lots'");
    expect_refused("mpi_pingpong", "params: {mpi_pingpong: {warmup_large: -7}}\n",
                   "'params.mpi_pingpong.warmup_large' must be between 0 and 100000000, got -7");
    expect_refused("mpi_pingpong", "params: {mpi_pingpong: {batch: 0}}\n",
                   "'params.mpi_pingpong.batch' must be between 1 and 100000000, got 0");
}

}  // namespace
}  // namespace shakedown::testing
