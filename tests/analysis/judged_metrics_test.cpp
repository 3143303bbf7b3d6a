// A PASS in the values table and the exports means a rule compared the figure; a figure no rule
// compared is "not judged" (`storage.write_gbs 1.03 GB/s PASS` had no nominal, no
// threshold and no fleet). The threshold rule says which figures it compared and the edge each
// met; the exports and the report carry it.
#include "analysis/export/tidy_rows.hpp"
#include "analysis/load/observations.hpp"
#include "analysis/load/run_details.hpp"
#include "analysis/load/run_loader.hpp"
#include "analysis/rules/figures/threshold_rule.hpp"
#include "analysis/rules/model/apply_rules.hpp"
#include "analysis/rules/settings/thresholds.hpp"
#include "analysis_fixtures.hpp"
#include "analysis_outcome.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

namespace shakedown::analysis {
namespace {

const Thresholds rules = Thresholds::parse(R"(metrics:
  stream.triad_gbs: {fraction_of_nominal: {warn: 0.8, fail: 0.6}}
  mpi_pingpong.latency_us: {fail_above: 10}
)",
                                           "t.yaml");

Metric triad(double value, std::optional<double> nominal) {
    return Metric{"stream.triad_gbs", "GB/s", value, nominal, Better::higher};
}

TEST(JudgedMetrics, APassSaysWhichEdgeItMetAndNoRuleOrNoNominalIsNotJudged) {
    const MetricJudgment passed = judge_metric(triad(95.0, 100.0), rules.rule_for("stream.triad_gbs"));
    EXPECT_EQ(passed.level, Level::pass);
    EXPECT_TRUE(passed.judged);
    ASSERT_TRUE(passed.bound.has_value());
    EXPECT_DOUBLE_EQ(*passed.bound, 80.0);  // the warn edge: 0.8 of nominal
    const MetricJudgment bounded = judge_metric(Metric{"mpi_pingpong.latency_us", "us", 2.0, std::nullopt, Better::lower},
                                                rules.rule_for("mpi_pingpong.latency_us"));
    EXPECT_TRUE(bounded.judged);
    EXPECT_EQ(bounded.bound, 10.0);
    // A band of nominal with no nominal recorded compares nothing; no rule at all neither.
    EXPECT_FALSE(judge_metric(triad(95.0, std::nullopt), rules.rule_for("stream.triad_gbs")).judged);
    EXPECT_FALSE(judge_metric(triad(95.0, 100.0), nullptr).judged);
    // A figure that is no number is judged (a FAIL) whatever the rules.
    const MetricJudgment nan = judge_metric(triad(std::nan(""), 100.0), nullptr);
    EXPECT_TRUE(nan.judged);
    EXPECT_EQ(nan.level, Level::fail);
    // A FAIL keeps its own edge.
    const MetricJudgment failed = judge_metric(triad(50.0, 100.0), rules.rule_for("stream.triad_gbs"));
    EXPECT_EQ(failed.level, Level::fail);
    EXPECT_DOUBLE_EQ(*failed.bound, 60.0);
}

// Through the analyzer's export: the healthy fixture's triad has a band of nominal in the built-in
// thresholds (PASS); the best repetition's triad (stream.triad_max_gbs) is shown, not judged, by
// the built-in rules (an empty rule) and has too few peers for the fleet rule.
TEST(JudgedMetrics, TheExportSaysPassOnlyForWhatARuleCompared) {
    testing::TempDir temp;
    auto traces = testing::healthy_traces(2, 1);
    for (Trace& trace : traces)
        testing::test_named(trace, "stream").metrics.push_back(testing::declared_metric("stream", "stream.triad_max_gbs", 7.7));
    const auto run = testing::write_run(temp.path() / "run", traces);
    const LoadedRun loaded = load_run(run);
    const Observations observations(loaded);
    RunDetails details(loaded);
    const AnalysisResult result = apply_rules(observations, Thresholds::built_in(), nullptr, nullptr, details);
    int judged_passes = 0;
    int not_judged = 0;
    for (const TidyRow& row : tidy_rows(observations, result.judgement, result.judged)) {
        if (row.metric == "stream.triad_gbs") {
            EXPECT_EQ(level_text(row), "pass");
            ASSERT_TRUE(row.bound.has_value());
            EXPECT_NEAR(*row.bound, 0.8 * 7.9, 1e-9);
            ++judged_passes;
        }
        if (row.metric == "stream.triad_max_gbs") {
            EXPECT_EQ(level_text(row), "not_judged");
            EXPECT_FALSE(row.bound.has_value());
            ++not_judged;
        }
    }
    EXPECT_EQ(judged_passes, 2);
    EXPECT_EQ(not_judged, 2);
    // The report's values table says so in words.
    const testing::AnalysisOutcome analysis = testing::analyze_in_process({.run_dir = run});
    EXPECT_EQ(analysis.exit_code, 0) << analysis.out;
    const std::string html = testing::read_text(run / "report.html");
    EXPECT_NE(html.find(">not judged<"), std::string::npos);
    EXPECT_NE(html.find("<th>bound met</th>"), std::string::npos);
}

}  // namespace
}  // namespace shakedown::analysis

namespace shakedown::analysis {
namespace {

// An error bound is a tolerance its test declares, not a capability: cg_fp64's relative error of
// 1e-12 under a bound of 1e-5 was drawn as 10 million times nominal among the "usable / nominal"
// bars. The bars keep the capabilities (the triad) and leave the tolerance out.
TEST(JudgedMetrics, AnErrorBoundIsNotDrawnAsUsableAgainstNominal) {
    testing::TempDir temp;
    auto traces = testing::healthy_traces(2, 1);
    for (Trace& trace : traces) {
        TestResult cg;
        cg.key = "cg_fp64";
        cg.status = Status::pass;
        cg.metrics.push_back(testing::declared_metric("cg_fp64", "cg_fp64.relative_error", 1e-12, 1e-5));
        trace.tests.push_back(cg);
    }
    const auto run = testing::write_run(temp.path() / "run", traces);
    const testing::AnalysisOutcome analysis = testing::analyze_in_process({.run_dir = run});
    EXPECT_EQ(analysis.exit_code, 0) << analysis.out;
    const std::string html = testing::read_text(run / "report.html");
    EXPECT_NE(html.find("stream.triad_gbs: usable / nominal per node"), std::string::npos);
    EXPECT_EQ(html.find("cg_fp64.relative_error: usable / nominal per node"), std::string::npos);
    // The figure is still judged and shown among the values.
    EXPECT_NE(html.find("cg_fp64.relative_error"), std::string::npos);
}

}  // namespace
}  // namespace shakedown::analysis
