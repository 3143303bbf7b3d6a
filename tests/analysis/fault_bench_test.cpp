// The fault bench (bench/synthetic_run.*): several slow links, a slow node, a slow switch group,
// per-measurement noise and repeated rounds in the allpairs matrix, seeded; the knobs it had keep
// their figures; bad knobs are input errors.
#include "bench/synthetic_run.hpp"
#include "comm/link_matrix_columns.hpp"
#include "core/errors.hpp"
#include "core/input_limits.hpp"
#include "link_fixtures.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <map>

namespace shakedown::bench {
namespace {

SyntheticRunSpec fleet(int nodes) { return analysis::testing::allpairs_fleet(nodes); }

// The median bandwidth of each node pair (a < b) over every row of the matrix.
std::map<std::pair<int, int>, std::vector<double>> by_pair(const SampleTable& matrix) {
    const auto src = *matrix.column_index(link_matrix_columns::src);
    const auto dst = *matrix.column_index(link_matrix_columns::dst);
    const auto bandwidth = *matrix.column_index(link_matrix_columns::bandwidth_gbs);
    std::map<std::pair<int, int>, std::vector<double>> pairs;
    for (const auto& row : matrix.rows()) {
        const int a = static_cast<int>(row[src]);
        const int b = static_cast<int>(row[dst]);
        pairs[{std::min(a, b), std::max(a, b)}].push_back(row[bandwidth]);
    }
    return pairs;
}

TEST(FaultBench, SeveralSlowLinksEachTakeTheirFactor) {
    SyntheticRunSpec spec = fleet(5);
    spec.slow_links = {{3, 0}, {3, 1}, {2, 4}};
    spec.slow_link_factor = 0.1;
    for (const auto& [pair, values] : by_pair(synthetic_link_matrix(spec))) {
        const bool slow = pair == std::pair{0, 3} || pair == std::pair{1, 3} || pair == std::pair{2, 4};
        for (double value : values) EXPECT_NEAR(value, slow ? 2.4 : 24.0, slow ? 0.05 : 0.5) << pair.first << "-" << pair.second;
    }
}

TEST(FaultBench, SlowNodeAndGroupFactorsAreKnobs) {
    SyntheticRunSpec spec = fleet(6);
    spec.slow_node = 1;
    spec.slow_node_link_factor = 0.85;
    spec.slow_group = {4, 5};
    spec.slow_group_factor = 0.5;
    const auto pairs = by_pair(synthetic_link_matrix(spec));
    EXPECT_NEAR(pairs.at({0, 1}).front(), 24.0 * 0.85, 0.5);
    EXPECT_NEAR(pairs.at({0, 4}).front(), 24.0 * 0.5, 0.3);
    EXPECT_NEAR(pairs.at({1, 5}).front(), 24.0 * 0.85 * 0.5, 0.3);
    EXPECT_NEAR(pairs.at({4, 5}).front(), 24.0, 0.5);
}

TEST(FaultBench, NoiseSpreadsEachMeasurementWithinItsBoundsAndRoundsRepeatThem) {
    SyntheticRunSpec spec = fleet(4);
    spec.noise = 0.3;
    spec.rounds = 5;
    spec.seed = 11;
    const SampleTable matrix = synthetic_link_matrix(spec);
    EXPECT_EQ(matrix.size(), 4u * 3u * 5u);  // ordered pairs x rounds
    double low = INFINITY;
    double high = 0.0;
    for (const auto& [pair, values] : by_pair(matrix)) {
        EXPECT_EQ(values.size(), 10u);  // both directions, 5 rounds each
        for (double value : values) {
            low = std::min(low, value / 24.0);
            high = std::max(high, value / 24.0);
        }
    }
    EXPECT_GE(low, 0.7);
    EXPECT_LE(high, 1.3);
    EXPECT_LT(low, 0.85);  // and it does spread
    EXPECT_GT(high, 1.15);
    // Seeded: the same seed gives the same matrix, another seed another one.
    EXPECT_EQ(synthetic_link_matrix(spec).rows(), matrix.rows());
    spec.seed = 12;
    EXPECT_NE(synthetic_link_matrix(spec).rows(), matrix.rows());
}

TEST(FaultBench, TheDefaultsKeepTheSingleRoundQuietMatrix) {
    // One row per ordered rank pair, +-2 % as before the noise knob.
    const SampleTable matrix = synthetic_link_matrix(fleet(3));
    EXPECT_EQ(matrix.size(), 6u);
    for (const auto& [pair, values] : by_pair(matrix))
        for (double value : values) EXPECT_NEAR(value, 24.0, 24.0 * 0.02 + 1e-9);
}

TEST(FaultBench, BadKnobsAreInputErrors) {
    SyntheticRunSpec spec = fleet(4);
    spec.slow_links = {{1, 1}};
    EXPECT_THROW(synthetic_link_matrix(spec), InputError);
    spec.slow_links = {{1, 4}};
    EXPECT_THROW(synthetic_link_matrix(spec), InputError);
    spec = fleet(4);
    spec.noise = 1.0;
    EXPECT_THROW(synthetic_link_matrix(spec), InputError);
    spec = fleet(4);
    spec.rounds = 0;
    EXPECT_THROW(synthetic_link_matrix(spec), InputError);
    spec = fleet(4);
    spec.slow_link_factor = 0.0;
    EXPECT_THROW(synthetic_link_matrix(spec), InputError);
}

TEST(FaultBench, RankCountsARunCannotHoldAreInputErrors) {
    SyntheticRunSpec spec;
    spec.ranks = 81920;  // 10,240 nodes x 8: held
    spec.ranks_per_node = 8;
    EXPECT_NO_THROW(check_synthetic_spec(spec));
    spec.ranks = input_limits::max_world_size + 1;
    EXPECT_THROW(check_synthetic_spec(spec), InputError);
    spec.ranks = 2048;
    spec.ranks_per_node = input_limits::max_gpus_per_node + 1;  // a GPU ordinal run.json refuses
    EXPECT_THROW(check_synthetic_spec(spec), InputError);
    spec.gpus = false;  // host-only ranks have no ordinal
    EXPECT_NO_THROW(check_synthetic_spec(spec));
}

}  // namespace
}  // namespace shakedown::bench
