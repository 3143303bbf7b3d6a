// Node bands: a node whose links are 13-20 % slow used to pass silently (one bound at 0.70); now
// below 0.90 of its reference WARNs (not drained, the run still passes), below 0.70 FAILs.
#include "analysis/analyzer.hpp"
#include "analysis_fixtures.hpp"
#include "link_fixtures.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <sstream>

namespace shakedown::analysis {
namespace {

using testing::LinkCase;
using testing::node_name;

bench::SyntheticRunSpec slow_node_at(double factor, int nodes = 6) {
    bench::SyntheticRunSpec spec = testing::allpairs_fleet(nodes);
    spec.slow_node = 2;
    spec.slow_node_link_factor = factor;
    return spec;
}

TEST(LinkNodeBands, AFifteenPercentSlowNodeWarns) {
    for (const int nodes : {3, 4, 6, 12}) {
        const LinkCase run(slow_node_at(0.85, nodes));
        for (std::uint64_t seed = 1; seed <= 20; ++seed) {
            bench::SyntheticRunSpec spec = slow_node_at(0.85, nodes);
            spec.seed = seed;
            const auto localization = run.localize(spec);
            ASSERT_EQ(localization.slow_nodes.size(), 1u) << nodes << " nodes, seed " << seed;
            const SlowNode& node = localization.slow_nodes[0];
            EXPECT_EQ(node.node, node_name(2));
            EXPECT_EQ(node.level, Level::warn) << nodes << " nodes, seed " << seed;  // not FAIL, not PASS
            EXPECT_NEAR(node.ratio, 0.85, 0.05);
            EXPECT_TRUE(localization.slow_links.empty());
            const auto findings = run.findings(localization);
            ASSERT_EQ(findings.size(), 1u);
            EXPECT_EQ(findings[0].level, Level::warn);
            EXPECT_NE(findings[0].reason.find("warn below 0.90, fail below 0.70"), std::string::npos) << findings[0].reason;
            EXPECT_TRUE(run.drained(findings).empty());
        }
    }
}

TEST(LinkNodeBands, ThirteenAndTwentyPercentWarnThirtyFivePercentFails) {
    const LinkCase run(slow_node_at(0.87));
    for (const auto& [factor, level] : {std::pair{0.87, Level::warn}, {0.80, Level::warn}, {0.65, Level::fail}}) {
        const auto localization = run.localize(slow_node_at(factor));
        ASSERT_EQ(localization.slow_nodes.size(), 1u) << factor;
        EXPECT_EQ(localization.slow_nodes[0].level, level) << factor;
    }
}

TEST(LinkNodeBands, AHealthyNodeAndANodeJustAboveTheBandPass) {
    const LinkCase run(slow_node_at(1.0));
    for (const double factor : {1.0, 0.95}) {
        const auto localization = run.localize(slow_node_at(factor));
        EXPECT_TRUE(localization.slow_nodes.empty()) << factor;
        EXPECT_TRUE(run.findings(localization).empty()) << factor;
        for (const NodeStatistic& stat : localization.node_stats) EXPECT_EQ(stat.level, Level::pass) << stat.node;
    }
}

TEST(LinkNodeBands, TheWarnedNodeIsAWarnInTheRunAndTheRunPasses) {
    testing::TempDir temp;
    bench::SyntheticRunSpec spec = slow_node_at(0.85);
    spec.sample_rows = 4;
    spec.telemetry_hz = 2.0;
    const auto dir = temp.path() / "warn";
    bench::write_synthetic_run(dir, spec);
    std::ostringstream out;
    std::ostringstream err;
    EXPECT_EQ(analyze({.run_dir = dir}, out, err), 0) << out.str() << err.str();  // a WARN does not fail the run
    const auto summary = nlohmann::json::parse(testing::read_text(dir / "summary.json"));
    EXPECT_EQ(summary["verdict"], "warn");
    for (const auto& node : summary["nodes"]) EXPECT_EQ(node["verdict"], node["node"] == "node0002" ? "warn" : "pass");
    EXPECT_EQ(summary["localization"]["slow_nodes"][0]["level"], "warn");
    EXPECT_EQ(summary["localization"]["bands"]["node_warn"], 0.9);
}

}  // namespace
}  // namespace shakedown::analysis
