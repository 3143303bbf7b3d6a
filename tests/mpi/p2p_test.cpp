#include "support/mpi_world.hpp"
#include "support/result_lookup.hpp"
#include "support/run_test.hpp"

#include <gtest/gtest.h>

namespace shakedown::testing {
namespace {

const std::string tiny_p2p =
    "params: {p2p: {min_bytes: 1, max_bytes: 16384, iterations_small: 20, warmup_small: 2, iterations_large: 5, "
    "warmup_large: 1, bw_iterations_small: 3, bw_warmup_small: 1, bw_iterations_large: 2, bw_warmup_large: 1, "
    "window: 8}}\n";

TEST(P2p, SweepOverTheLocalPairValidates) {
    const auto result = run_registered_test("p2p", tiny_p2p);
    EXPECT_EQ(result.status, Status::pass) << result.reason;
    EXPECT_EQ(result.parameters.at("pairs_run"), "0-1 (intra-node)");
    if (world_rank() > 1) {
        EXPECT_TRUE(result.samples.empty());
        return;
    }
    EXPECT_EQ(result.samples.size(), 15u);  // 1, 2, 4 .. 16384
    for (const auto* name : {"p2p.intra_node_latency_us", "p2p.intra_node_latency_p99_us", "p2p.intra_node_bandwidth_gbs",
                             "p2p.intra_node_bibandwidth_gbs", "p2p.intra_node_message_rate_mps"}) {
        const auto value = metric(result, name);
        ASSERT_TRUE(value.has_value()) << name;
        EXPECT_GT(*value, 0.0) << name;
    }
    EXPECT_GE(*metric(result, "p2p.intra_node_latency_p99_us"), *metric(result, "p2p.intra_node_latency_us"));
    EXPECT_FALSE(metric(result, "p2p.inter_node_latency_us").has_value());
    const auto min = result.samples.column("latency_min_us");
    const auto median = result.samples.column("latency_median_us");
    for (std::size_t i = 0; i < min.size(); ++i) EXPECT_LE(min[i], median[i]);
}

TEST(P2p, NamedPairsRunOneAfterAnother) {
    if (world_size() < 4) GTEST_SKIP() << "needs 4 ranks";
    const auto result = run_registered_test(
        "p2p", "params: {p2p: {pairs: \"0-3,2-1\", min_bytes: 8, max_bytes: 64, iterations_small: 5, warmup_small: 1, "
               "bw_iterations_small: 2, bw_warmup_small: 1, window: 4}}\n");
    EXPECT_EQ(result.status, Status::pass) << result.reason;
    EXPECT_EQ(result.parameters.at("pairs_run"), "0-3 (intra-node), 2-1 (intra-node)");
    const double expected_peer[] = {3, 2, 1, 0};
    ASSERT_EQ(result.samples.size(), 4u);  // 8, 16, 32, 64 B
    for (const double peer : result.samples.column("peer")) EXPECT_EQ(peer, expected_peer[world_rank()]);
}

TEST(P2p, PlantedCorruptionFails) {
    const auto result = run_registered_test("p2p", tiny_p2p + "faults: [{kind: corrupt, test: p2p, rank: 0}]\n");
    if (world_rank() > 1) return;
    EXPECT_EQ(result.status, Status::fail);
    EXPECT_NE(result.reason.find("payload mismatch between ranks 0 and 1: 1 B message"), std::string::npos)
        << result.reason;
    EXPECT_NE(result.reason.find("more payload mismatches"), std::string::npos) << result.reason;
}

TEST(P2p, UpsideDownSizeRangeIsAClearError) {
    expect_refused("p2p", "params: {p2p: {min_bytes: 4096, max_bytes: 8}}\n",
                   "size range is upside down: min_bytes 4096 > max_bytes 8");
}

TEST(P2p, BadCountsAreRefusedBeforeAnyWork) {
    expect_refused("p2p", "params: {p2p: {window: 0}}\n", "'params.p2p.window' must be between 1 and 100000000, got 0");
    expect_refused("p2p", "params: {p2p: {bw_warmup_large: -7}}\n",
                   "'params.p2p.bw_warmup_large' must be between 0 and 100000000, got -7");
    expect_refused("p2p", "params: {p2p: {iterations_small: -7}}\n",
                   "'params.p2p.iterations_small' must be between 1 and 100000000, got -7");
}

TEST(P2p, PairNamingANonexistentRankIsAClearError) {
    expect_refused("p2p", "params: {p2p: {pairs: \"0-1,1-99\"}}\n",
                   "pair '1-99' in parameter 'pairs' names rank 99, but the job has ranks 0.." +
                       std::to_string(world_size() - 1));
}

}  // namespace
}  // namespace shakedown::testing
