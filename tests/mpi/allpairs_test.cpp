#include "support/mpi_world.hpp"
#include "support/result_lookup.hpp"
#include "support/run_test.hpp"
#include "core/waiver_reasons.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <vector>

namespace shakedown::testing {
namespace {

const std::string tiny_allpairs =
    "params: {allpairs: {latency_iterations: 6, latency_warmup: 1, bandwidth_bytes: 65536, bandwidth_window: 4, "
    "bandwidth_iterations: 2, bandwidth_warmup: 1}}\n";

TEST(AllPairs, MatrixIsCompleteAndValidated) {
    const auto result = run_registered_test("allpairs", tiny_allpairs);
    EXPECT_EQ(result.status, Status::pass) << result.reason;
    const int p = world_size();
    ASSERT_TRUE(metric(result, "allpairs.intra_node_bandwidth_min_gbs").has_value());
    EXPECT_GT(*metric(result, "allpairs.intra_node_bandwidth_min_gbs"), 0.0);
    EXPECT_LE(*metric(result, "allpairs.intra_node_min_over_median"), 1.0);
    EXPECT_FALSE(metric(result, "allpairs.inter_node_bandwidth_min_gbs").has_value());  // one node
    if (world_rank() != 0) {
        EXPECT_TRUE(result.samples.empty());
        return;
    }
    ASSERT_EQ(result.samples.size(), static_cast<std::size_t>(p * (p - 1)));
    std::set<std::pair<int, int>> pairs;
    const auto src = result.samples.column("src");
    const auto dst = result.samples.column("dst");
    const auto latency = result.samples.column("latency_us");
    const auto bandwidth = result.samples.column("bandwidth_gbs");
    for (std::size_t i = 0; i < src.size(); ++i) {
        EXPECT_NE(src[i], dst[i]);
        pairs.insert({static_cast<int>(src[i]), static_cast<int>(dst[i])});
        EXPECT_GT(latency[i], 0.0);
        EXPECT_GT(bandwidth[i], 0.0);
    }
    EXPECT_EQ(pairs.size(), static_cast<std::size_t>(p * (p - 1)));  // every ordered pair once
    for (const double flag : result.samples.column("intra_node")) EXPECT_EQ(flag, 1.0);
}

TEST(AllPairs, RoundsMeasureEveryOrderedPairThatOften) {
    const auto result = run_registered_test(
        "allpairs", "params: {allpairs: {latency_iterations: 4, latency_warmup: 1, bandwidth_bytes: 65536, "
                    "bandwidth_window: 4, bandwidth_iterations: 2, bandwidth_warmup: 1, rounds: 3}}\n");
    EXPECT_EQ(result.status, Status::pass) << result.reason;
    EXPECT_EQ(result.parameters.at("rounds"), "3");
    if (world_rank() != 0) return;
    const int p = world_size();
    ASSERT_EQ(result.samples.size(), static_cast<std::size_t>(3 * p * (p - 1)));
    std::map<std::pair<int, int>, int> rows_per_pair;
    const auto src = result.samples.column("src");
    const auto dst = result.samples.column("dst");
    for (std::size_t i = 0; i < src.size(); ++i) ++rows_per_pair[{static_cast<int>(src[i]), static_cast<int>(dst[i])}];
    EXPECT_EQ(rows_per_pair.size(), static_cast<std::size_t>(p * (p - 1)));
    for (const auto& [pair, rows] : rows_per_pair) EXPECT_EQ(rows, 3) << pair.first << "->" << pair.second;
}

TEST(AllPairs, SlowRankIsInEveryOneOfTheWorstLinks) {
    const int slow = world_size() - 1;
    // Medians of a few iterations and a delay far above a loaded machine's scheduling noise.
    const auto result = run_registered_test(
        "allpairs", "params: {allpairs: {latency_iterations: 5, latency_warmup: 1, bandwidth_bytes: 65536, "
                    "bandwidth_window: 4, bandwidth_iterations: 3, bandwidth_warmup: 1}}\n"
                    "faults: [{kind: delay, test: allpairs, rank: " + std::to_string(slow) + ", seconds: 0.05}]\n");
    EXPECT_EQ(result.status, Status::pass) << result.reason;

    // The slow rank's own links are all slow: its links' median is the lowest of all ranks.
    const double mine = *metric(result, "allpairs.intra_node_rank_median_over_median");
    std::vector<double> all(static_cast<std::size_t>(world_size()));
    MPI_Allgather(&mine, 1, MPI_DOUBLE, all.data(), 1, MPI_DOUBLE, MPI_COMM_WORLD);
    if (world_size() > 2)  // with two ranks both share the same two links
        EXPECT_EQ(std::min_element(all.begin(), all.end()) - all.begin(), slow);

    if (world_rank() != 0) return;
    const auto src = result.samples.column("src");
    const auto dst = result.samples.column("dst");
    const auto bandwidth = result.samples.column("bandwidth_gbs");
    const auto latency = result.samples.column("latency_us");
    std::vector<std::size_t> by_bandwidth(src.size()), by_latency(src.size());
    for (std::size_t i = 0; i < src.size(); ++i) by_bandwidth[i] = by_latency[i] = i;
    std::sort(by_bandwidth.begin(), by_bandwidth.end(), [&](auto a, auto b) { return bandwidth[a] < bandwidth[b]; });
    std::sort(by_latency.begin(), by_latency.end(), [&](auto a, auto b) { return latency[a] > latency[b]; });
    const auto links_of_slow_rank = static_cast<std::size_t>(2 * (world_size() - 1));
    for (std::size_t i = 0; i < links_of_slow_rank; ++i) {
        const auto b = by_bandwidth[i];
        const auto l = by_latency[i];
        EXPECT_TRUE(src[b] == slow || dst[b] == slow) << "slow link " << src[b] << "->" << dst[b];
        EXPECT_TRUE(src[l] == slow || dst[l] == slow) << "high-latency link " << src[l] << "->" << dst[l];
    }
    EXPECT_NE(result.parameters.at("worst_link").find(std::to_string(slow)), std::string::npos);
}

TEST(AllPairs, PlantedCorruptionFailsNamingTheLink) {
    const auto result = run_registered_test("allpairs", tiny_allpairs + "faults: [{kind: corrupt, test: allpairs, rank: 1}]\n");
    if (world_rank() == 1) {
        EXPECT_EQ(result.status, Status::fail);
        EXPECT_NE(result.reason.find("payload mismatch on the link 0 -> 1 (ping 8 B, last timed message, byte 4)"),
                  std::string::npos)
            << result.reason;
    } else {
        EXPECT_EQ(result.status, Status::pass) << result.reason;
    }
}

// pairs_per_node 1 of 4 ranks: the shifts 1 and 3 (a mirror pair), so each rank's two ring
// neighbours in both directions: 8 of the 12 ordered pairs, the two diagonals never.
TEST(AllPairs, SampledPeersMeasureTheirPairsBothWays) {
    const auto result = run_registered_test("allpairs", "params: {allpairs: {latency_iterations: 4, latency_warmup: 1, "
                                                        "bandwidth_bytes: 65536, bandwidth_window: 4, bandwidth_iterations: "
                                                        "2, bandwidth_warmup: 1, pairs_per_node: 1, seed: 9}}\n");
    EXPECT_EQ(result.status, Status::pass) << result.reason;
    const int p = world_size();
    if (p != 4) {  // 2 ranks: one peer is all of them
        EXPECT_EQ(result.parameters.count("sampled_shifts"), 0u);
        return;
    }
    EXPECT_EQ(result.parameters.at("sampled_shifts"), "1,3");
    EXPECT_EQ(result.parameters.at("peers_measured"), "2");
    if (world_rank() != 0) return;
    ASSERT_EQ(result.samples.size(), 8u);
    std::set<std::pair<int, int>> pairs;
    const auto src = result.samples.column("src");
    const auto dst = result.samples.column("dst");
    for (std::size_t i = 0; i < src.size(); ++i) pairs.insert({static_cast<int>(src[i]), static_cast<int>(dst[i])});
    EXPECT_EQ(pairs.size(), 8u);
    for (const auto& [a, b] : pairs) {
        EXPECT_TRUE(pairs.count({b, a})) << a << "->" << b << " without " << b << "->" << a;
        EXPECT_NE((a - b + 4) % 4, 2) << "a diagonal was measured: " << a << "->" << b;
    }
    for (const double bandwidth : result.samples.column("bandwidth_gbs")) EXPECT_GT(bandwidth, 0.0);
}

// Every rank of this launch shares one node: scope nodes has no pair of nodes to measure, and
// says so on every rank as a job too small (the launch's choice), not as the node's fault.
TEST(AllPairs, NodeScopeOnOneNodeIsWaivedAsAJobTooSmall) {
    const auto result = run_registered_test("allpairs", "params: {allpairs: {scope: nodes}}\n");
    EXPECT_EQ(result.status, Status::waived);
    EXPECT_EQ(result.reason, "needs at least 2 nodes with scope nodes (this run has 1)");
    EXPECT_TRUE(is_job_too_small_waiver(result.reason));
    EXPECT_TRUE(result.metrics.empty());
    EXPECT_TRUE(result.samples.empty());
}

TEST(AllPairs, RankScopeIsTheDefaultAndMeasuresEveryRank) {
    const auto result = run_registered_test("allpairs", tiny_allpairs);
    EXPECT_EQ(result.parameters.at("scope"), "ranks");
    EXPECT_EQ(result.parameters.count("role"), 0u);
    if (world_rank() == 0) EXPECT_EQ(result.samples.size(), static_cast<std::size_t>(world_size() * (world_size() - 1)));
}

TEST(AllPairs, BadValuesAreRefusedBeforeAnyWork) {
    expect_refused("allpairs", "params: {allpairs: {pairs_per_node: 0}}\n",
                   "'params.allpairs.pairs_per_node' must be between 1 and 1000000, got 0");
    expect_refused("allpairs", "params: {allpairs: {scope: racks}}\n", "'params.allpairs.scope' unknown value 'racks' (known: ranks, nodes)");
    expect_refused("allpairs", "params: {allpairs: {latency_bytes: -7}}\n",
                   "'params.allpairs.latency_bytes' must be between 1 and 1073741824, got -7");  // named by the runner
    expect_refused("allpairs", "params: {allpairs: {bandwidth_window: 2048}}\n",
                   "'params.allpairs.bandwidth_window' must be between 1 and 1024, got 2048");
    expect_refused("allpairs", "params: {allpairs: {bandwidth_bytes: 1073741824, bandwidth_window: 8}}\n",
                   "bandwidth_bytes x bandwidth_window must stay within 4 GiB of receive buffers");
}

}  // namespace
}  // namespace shakedown::testing
