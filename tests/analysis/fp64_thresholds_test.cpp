// The built-in thresholds of lu_fp64 and cg_fp64 (analysis/thresholds/default.yaml and the H200
// figures in calibrated.yaml): a healthy H200 passes, a slow one WARNs or FAILs naming the
// calibrated figure, a wrong residual FAILs above HPL's 16, and a host run on shared cores is not
// judged by its fraction of the peak; a host node far below its peers is the fleet rule's.
#include "analysis/load/observations.hpp"
#include "analysis/rules/figures/fleet_rule.hpp"
#include "analysis/rules/figures/threshold_rule.hpp"
#include "analysis/rules/settings/thresholds.hpp"
#include "analysis_fixtures.hpp"

#include <gtest/gtest.h>

#include <map>
#include <string>

namespace shakedown::analysis {
namespace {

const Thresholds& built_in() {
    static const Thresholds thresholds = Thresholds::built_in();
    return thresholds;
}

using Parameters = std::map<std::string, std::string>;

MetricJudgment judge(const Metric& metric, const std::string& gpu, const Parameters& parameters, int ranks = 1) {
    const auto* calibrated = built_in().calibration().find(metric.name, gpu, parameters, ranks);
    return judge_metric(metric, built_in().rule_for(metric.name), calibrated, built_in().calibration().bands());
}

const Parameters h200_lu{{"device", "gpu"}, {"gpu_algorithm_used", "cusolver"}, {"n_used", "48384"}};

Metric lu_rate(double tflops, double nominal = 67.0) {
    return Metric{"lu_fp64.tflops", "TFLOP/s", tflops, nominal, Better::higher};
}

// A WARN against the calibrated figure, with that figure (in TFLOP/s) as the finding's reference.
void expect_warn_against(const MetricJudgment& warn, double healthy_tflops) {
    EXPECT_EQ(warn.level, Level::warn);
    EXPECT_EQ(warn.code, ReasonCode::below_calibrated);
    ASSERT_TRUE(warn.reference);
    EXPECT_NEAR(*warn.reference, healthy_tflops, 1e-9);
}

TEST(Fp64Thresholds, AHealthyH200LuPassesAndASlowOneWarnsThenFailsAgainstItsCalibratedFigure) {
    EXPECT_EQ(judge(lu_rate(37.5), "NVIDIA H200", h200_lu).level, Level::pass);  // 0.56 of 67, as measured
    EXPECT_EQ(judge(lu_rate(34.5), "NVIDIA H200", h200_lu).level, Level::pass);  // 0.92 of the healthy 37.5
    expect_warn_against(judge(lu_rate(31.0), "NVIDIA H200", h200_lu), 0.56 * 67.0);  // 0.83 of healthy
    const MetricJudgment fail = judge(lu_rate(24.0), "NVIDIA H200", h200_lu);  // 0.64 of healthy
    EXPECT_EQ(fail.level, Level::fail);
    EXPECT_EQ(fail.code, ReasonCode::below_calibrated);
    EXPECT_NE(fail.reason.find("of a healthy H200's"), std::string::npos) << fail.reason;
}

TEST(Fp64Thresholds, TheLookaheadLuAtTheAutomaticSizeIsJudgedByItsOwnFigure) {
    const Parameters automatic{{"device", "gpu"}, {"gpu_algorithm_used", "lookahead"}, {"n_used", "105984"},
                               {"block_used", "2048"}};
    EXPECT_EQ(judge(lu_rate(46.0), "NVIDIA H200", automatic).level, Level::pass);  // as measured, 0.69 of 67
    EXPECT_EQ(judge(lu_rate(41.5), "NVIDIA H200", automatic).level, Level::pass);  // 0.91 of the healthy 45.6
    expect_warn_against(judge(lu_rate(38.0), "NVIDIA H200", automatic), 0.68 * 67.0);  // 0.83 of healthy
    EXPECT_EQ(judge(lu_rate(30.0), "NVIDIA H200", automatic).level, Level::fail);  // 0.66 of healthy
    // Another panel width is another condition: no figure, not judged by fraction.
    Parameters other_block = automatic;
    other_block["block_used"] = "1024";
    EXPECT_EQ(judge(lu_rate(30.0), "NVIDIA H200", other_block).level, Level::pass);
}

TEST(Fp64Thresholds, TheLuRateIsJudgedByFractionOnlyWhereACalibratedFigureHolds) {
    // A smaller n (quick suite, n given) runs slower on a healthy H200: no figure holds there.
    Parameters smaller = h200_lu;
    smaller["n_used"] = "23808";
    EXPECT_EQ(judge(lu_rate(28.3), "NVIDIA H200", smaller).level, Level::pass);
    // The look-ahead LU is calibrated at the full suite's automatic n only; another part has no figure.
    Parameters lookahead = h200_lu;
    lookahead["gpu_algorithm_used"] = "lookahead";
    EXPECT_EQ(judge(lu_rate(20.0), "NVIDIA H200", lookahead).level, Level::pass);
    EXPECT_EQ(judge(lu_rate(5.0), "NVIDIA A100-SXM4-80GB", h200_lu).level, Level::pass);
    // `calibrated: true` is the whole of it: no generic band of nominal stands behind it.
    ASSERT_NE(built_in().rule_for("lu_fp64.tflops"), nullptr);
    EXPECT_TRUE(built_in().rule_for("lu_fp64.tflops")->calibrated);
    EXPECT_FALSE(built_in().rule_for("lu_fp64.tflops")->fraction_of_nominal);
    // A host LU on shared or oversubscribed cores: 0.2 % of the cores' peak is shown, not judged.
    EXPECT_EQ(judge(lu_rate(0.0008, 0.4), "", {{"device", "host"}}).level, Level::pass);
    EXPECT_EQ(judge(lu_rate(0.0008, 0.4), "NVIDIA H200", {{"device", "host"}, {"n_used", "48384"}}).level, Level::pass);
}

TEST(Fp64Thresholds, AResidualAboveHplsLimitFailsAndAHealthyOnePasses) {
    const Metric healthy{"lu_fp64.scaled_residual", "ratio", 0.0042, std::nullopt, Better::lower};
    EXPECT_EQ(judge(healthy, "NVIDIA H200", h200_lu).level, Level::pass);
    EXPECT_EQ(judge(Metric{"lu_fp64.scaled_residual", "ratio", 15.9, std::nullopt, Better::lower}, "", {}).level,
              Level::pass);
    const MetricJudgment wrong =
        judge(Metric{"lu_fp64.scaled_residual", "ratio", 6.58e7, std::nullopt, Better::lower}, "NVIDIA H200", h200_lu);
    EXPECT_EQ(wrong.level, Level::fail);
    EXPECT_EQ(wrong.code, ReasonCode::above_bound);
    ASSERT_TRUE(wrong.bound);
    EXPECT_EQ(*wrong.bound, 16.0);
}

Metric cg_fraction(double value) {
    return Metric{"cg_fp64.bandwidth_bound_fraction", "fraction", value, std::nullopt, Better::higher};
}

const Parameters cg_default{{"device", "gpu"}, {"global_n", "auto"}, {"local_n", "auto"}};

TEST(Fp64Thresholds, CgOnOneH200PassesAtItsBoundAndWarnsThenFailsBelowIt) {
    EXPECT_EQ(judge(cg_fraction(0.94), "NVIDIA H200", cg_default).level, Level::pass);
    EXPECT_EQ(judge(cg_fraction(0.85), "NVIDIA H200", cg_default).level, Level::pass);  // against stream's triad
    const MetricJudgment warn = judge(cg_fraction(0.74), "NVIDIA H200", cg_default);     // 0.82 of 0.90
    EXPECT_EQ(warn.level, Level::warn);
    EXPECT_EQ(warn.code, ReasonCode::below_calibrated);
    const MetricJudgment fail = judge(cg_fraction(0.55), "NVIDIA H200", cg_default);  // 0.61 of 0.90
    EXPECT_EQ(fail.level, Level::fail);
    EXPECT_EQ(fail.code, ReasonCode::below_calibrated);
}

TEST(Fp64Thresholds, CgElsewhereIsNotJudgedByItsFraction) {
    EXPECT_EQ(judge(cg_fraction(0.2), "", {{"device", "host"}, {"global_n", "auto"}, {"local_n", "auto"}}).level,
              Level::pass);                                                                  // host, shared cores
    EXPECT_EQ(judge(cg_fraction(0.55), "NVIDIA H200", cg_default, 2).level, Level::pass);   // 2 GPUs: not measured
    EXPECT_EQ(judge(cg_fraction(0.55), "NVIDIA H200", {{"global_n", "64"}, {"local_n", "auto"}}).level, Level::pass);
}

// Four host nodes factoring alike; one far below the others is a fleet outlier, the rest pass.
std::vector<Finding> host_cg_fleet(double slow_node_value) {
    auto traces = testing::healthy_traces(4, 1);
    for (std::size_t rank = 0; rank < traces.size(); ++rank) {
        TestResult cg;
        cg.key = "cg_fp64";
        cg.parameters = {{"device", "host"}, {"global_n", "auto"}, {"local_n", "auto"}};
        cg.metrics.push_back(cg_fraction(rank == 3 ? slow_node_value : 0.6 + 0.01 * static_cast<double>(rank)));
        traces[rank].tests.push_back(cg);
    }
    const LoadedRun run = testing::loaded_run(traces);
    const Observations observations(run);
    std::vector<Finding> findings = threshold_findings(observations, built_in());
    const FleetAnalysis fleet = analyze_fleet(observations, built_in(), findings);
    findings.insert(findings.end(), fleet.findings.begin(), fleet.findings.end());
    std::vector<Finding> cg;
    for (Finding& finding : findings)
        if (finding.test == "cg_fp64") cg.push_back(std::move(finding));
    return cg;
}

TEST(Fp64Thresholds, AHostNodeFarBelowItsPeersIsTheFleetRules) {
    EXPECT_TRUE(host_cg_fleet(0.61).empty());
    const std::vector<Finding> slow = host_cg_fleet(0.2);
    ASSERT_EQ(slow.size(), 1u);
    EXPECT_EQ(slow[0].code, ReasonCode::fleet_outlier);
    EXPECT_EQ(slow[0].level, Level::fail);  // 0.67 below the median: beyond fail_deviation 0.25
}

}  // namespace
}  // namespace shakedown::analysis
