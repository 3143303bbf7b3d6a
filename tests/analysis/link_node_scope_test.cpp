// allpairs with scope nodes (mpi/allpairs/allpairs.cpp): only each node's leader, its lowest rank, takes
// part in the ring-shift rounds, so rank 0's matrix names the leaders' world ranks (0, R, 2R, ...
// with R ranks per node) and the other ranks record a pass without figures. The analyzer must map
// those pairs to their nodes, name a slow node from them, flag nothing on a healthy fleet, and
// call no non-leader failed or missing.
#include "analysis/rules/links/link_localization.hpp"
#include "analysis_fixtures.hpp"
#include "analysis_outcome.hpp"
#include "bench/synthetic_run.hpp"
#include "comm/link_matrix_columns.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <set>
#include <string>
#include <vector>

namespace shakedown::analysis {
namespace {

using testing::TempDir;

constexpr int nodes = 6;
constexpr int ranks_per_node = 4;

// The one-rank-per-node run the leaders make among themselves (their matrix, their figures).
bench::SyntheticRunSpec leaders_run(std::optional<int> slow_node, std::uint64_t seed = 1) {
    bench::SyntheticRunSpec spec;
    spec.ranks = nodes;
    spec.ranks_per_node = 1;
    spec.gpus = false;
    spec.tests = {"allpairs"};
    spec.slow_node = slow_node;
    spec.seed = seed;
    spec.run_id = testing::test_run_id;
    spec.sample_rows = 4;
    spec.telemetry_hz = 2.0;
    return spec;
}

// The leaders' matrix with leader i's index replaced by its world rank i x ranks_per_node.
SampleTable in_world_ranks(SampleTable matrix) {
    const std::size_t src = *matrix.column_index(link_matrix_columns::src);
    const std::size_t dst = *matrix.column_index(link_matrix_columns::dst);
    SampleTable out(matrix.columns());
    for (std::vector<double> row : matrix.rows()) {
        row[src] *= ranks_per_node;
        row[dst] *= ranks_per_node;
        out.add_row(std::move(row));
    }
    return out;
}

// Every rank of a nodes x ranks_per_node run as allpairs with scope nodes leaves it: the leaders
// with their figures (rank 0 with the matrix), the others a pass with their role and no figures.
std::vector<Trace> node_scope_traces(const bench::SyntheticRunSpec& leaders) {
    bench::SyntheticRunSpec everyone = leaders;
    everyone.ranks = nodes * ranks_per_node;
    everyone.ranks_per_node = ranks_per_node;
    everyone.slow_node.reset();
    std::vector<Trace> traces;
    for (int rank = 0; rank < everyone.ranks; ++rank) {
        Trace trace = bench::make_synthetic_trace(everyone, rank);
        TestResult& allpairs = testing::test_named(trace, "allpairs");
        const TestResult shape = allpairs;
        if (rank % ranks_per_node == 0) {
            Trace leader = bench::make_synthetic_trace(leaders, rank / ranks_per_node);
            allpairs = testing::test_named(leader, "allpairs");
            allpairs.samples = rank == 0 ? in_world_ranks(allpairs.samples) : SampleTable{};
            allpairs.parameters["matrix_ranks"] = std::to_string(nodes) + " node leaders";
        } else {
            allpairs = TestResult{};
            allpairs.key = "allpairs";
            allpairs.parameters["role"] = "not a node leader: the node leaders measure the links (scope nodes)";
        }
        allpairs.start_utc = shape.start_utc;
        allpairs.end_utc = shape.end_utc;
        allpairs.parameters["scope"] = "nodes";
        traces.push_back(std::move(trace));
    }
    return traces;
}

struct NodeScopeCase {
    std::unique_ptr<LoadedRun> run = std::make_unique<LoadedRun>(
        testing::loaded_run(testing::healthy_traces(nodes * ranks_per_node, ranks_per_node)));
    std::unique_ptr<Observations> observations = std::make_unique<Observations>(*run);

    LinkLocalization localize(const bench::SyntheticRunSpec& leaders) const {
        return localize_links(in_world_ranks(bench::synthetic_link_matrix(leaders)), *observations, nullptr, LinkBands{});
    }
};

TEST(LinkNodeScope, LeadersMatrixFoldsIntoEveryNodePair) {
    const NodeScopeCase c;
    const LinkLocalization result = c.localize(leaders_run(std::nullopt));
    ASSERT_TRUE(result.analyzed) << result.note;
    EXPECT_EQ(result.links.size(), static_cast<std::size_t>(nodes * (nodes - 1) / 2));
    for (const NodeLink& link : result.links) EXPECT_EQ(link.samples, 2) << link.a << "<->" << link.b;  // both directions
    EXPECT_EQ(result.node_stats.size(), static_cast<std::size_t>(nodes));
}

TEST(LinkNodeScope, PlantedSlowNodeIsNamedOnItsFirstRank) {
    const NodeScopeCase c;
    const LinkLocalization result = c.localize(leaders_run(3));
    ASSERT_EQ(result.slow_nodes.size(), 1u);
    EXPECT_EQ(result.slow_nodes[0].node, "node0003");
    EXPECT_TRUE(result.slow_nodes[0].all_links);
    EXPECT_EQ(result.slow_nodes[0].level, Level::fail);
    EXPECT_TRUE(result.slow_links.empty());
    EXPECT_TRUE(result.slow_groups.empty());
    const auto findings = link_findings(result, *c.observations);
    ASSERT_EQ(findings.size(), 1u);
    EXPECT_EQ(findings[0].node, "node0003");
    EXPECT_EQ(findings[0].rank, 3 * ranks_per_node);  // the node's leader
    EXPECT_EQ(findings[0].level, Level::fail);
}

TEST(LinkNodeScope, HealthyLeadersMatricesFlagNothingOverManySeeds) {
    const NodeScopeCase c;
    for (std::uint64_t seed = 1; seed <= 50; ++seed) {
        const LinkLocalization result = c.localize(leaders_run(std::nullopt, seed));
        ASSERT_TRUE(result.analyzed);
        EXPECT_TRUE(link_findings(result, *c.observations).empty()) << "seed " << seed;
    }
}

// pairs_per_node 4 of 12 nodes: the shifts 2, 5 and their mirrors 10, 7 (mpi/allpairs/shift_schedule.hpp),
// so each leader's 4 peers in both directions and 24 of the 66 node pairs.
SampleTable sampled(const SampleTable& leaders_matrix, int leaders, const std::set<int>& shifts) {
    const std::size_t src = *leaders_matrix.column_index(link_matrix_columns::src);
    const std::size_t dst = *leaders_matrix.column_index(link_matrix_columns::dst);
    SampleTable out(leaders_matrix.columns());
    for (const auto& row : leaders_matrix.rows()) {
        const int shift = (static_cast<int>(row[dst]) - static_cast<int>(row[src]) + leaders) % leaders;
        if (shifts.count(shift)) out.add_row(row);
    }
    return in_world_ranks(out);
}

TEST(LinkNodeScope, SampledPeersNameASlowNodeAndPassAHealthyFleet) {
    constexpr int fleet = 12;
    const std::set<int> shifts = {2, 5, 7, 10};
    const auto run = std::make_unique<LoadedRun>(testing::loaded_run(testing::healthy_traces(fleet * ranks_per_node, ranks_per_node)));
    const Observations observations(*run);
    auto spec = leaders_run(std::nullopt);
    spec.ranks = fleet;
    for (std::uint64_t seed = 1; seed <= 30; ++seed) {
        spec.seed = seed;
        spec.slow_node.reset();
        const auto healthy = localize_links(sampled(bench::synthetic_link_matrix(spec), fleet, shifts), observations, nullptr, LinkBands{});
        ASSERT_TRUE(healthy.analyzed) << healthy.note;
        EXPECT_EQ(healthy.links.size(), 24u);
        EXPECT_TRUE(link_findings(healthy, observations).empty()) << "seed " << seed;
        spec.slow_node = 7;
        const auto slow = localize_links(sampled(bench::synthetic_link_matrix(spec), fleet, shifts), observations, nullptr, LinkBands{});
        ASSERT_EQ(slow.slow_nodes.size(), 1u) << "seed " << seed;
        EXPECT_EQ(slow.slow_nodes[0].node, "node0007");
        EXPECT_EQ(slow.slow_nodes[0].links, 4);
        EXPECT_EQ(slow.slow_nodes[0].level, Level::fail);
        const auto findings = link_findings(slow, observations);
        ASSERT_EQ(findings.size(), 1u) << "seed " << seed;
        EXPECT_EQ(findings[0].rank, 7 * ranks_per_node);
    }
}

TEST(LinkNodeScope, AnalyzerNamesTheSlowNodeAndCallsNoNonLeaderFailedOrMissing) {
    TempDir temp;
    const auto run = testing::write_run(temp.path() / "slow", node_scope_traces(leaders_run(3)), "complete", {"allpairs"});
    const testing::AnalysisOutcome analysis = testing::analyze_in_process({.run_dir = run});
    EXPECT_EQ(analysis.exit_code, 1) << analysis.out << analysis.err;
    EXPECT_EQ(testing::verdict_of(analysis, "node0003"), "fail") << analysis.out;
    EXPECT_EQ(analysis.summary["counts"]["nodes"]["pass"], nodes - 1) << analysis.out;
    ASSERT_EQ(analysis.summary["localization"]["slow_nodes"].size(), 1u);
    EXPECT_EQ(analysis.summary["localization"]["slow_nodes"][0]["node"], "node0003");
    const auto findings = testing::findings_of(analysis);
    ASSERT_EQ(findings.size(), 1u) << analysis.summary["nodes"].dump(2);
    EXPECT_EQ(findings[0]["rank"], 3 * ranks_per_node);
    EXPECT_NE(findings[0]["reason"].get<std::string>().find("slow node: all 5 of node0003's inter-node links are slow"),
              std::string::npos)
        << findings[0]["reason"];
}

TEST(LinkNodeScope, AnalyzerPassesAHealthyNodeScopeRun) {
    TempDir temp;
    const auto run =
        testing::write_run(temp.path() / "healthy", node_scope_traces(leaders_run(std::nullopt)), "complete", {"allpairs"});
    const testing::AnalysisOutcome analysis = testing::analyze_in_process({.run_dir = run});
    EXPECT_EQ(analysis.exit_code, 0) << analysis.out << analysis.err;
    EXPECT_EQ(analysis.summary["verdict"], "pass");
    EXPECT_TRUE(testing::findings_of(analysis).empty()) << analysis.summary["nodes"].dump(2);
    EXPECT_EQ(analysis.summary["localization"]["analyzed"], true);
    EXPECT_EQ(analysis.summary["counts"]["nodes"]["pass"], nodes);
}

}  // namespace
}  // namespace shakedown::analysis
