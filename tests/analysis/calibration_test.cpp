// Calibrated references: a healthy part passes against what healthy hardware of it gives, 10 %
// below that WARNs, 25 % below FAILs, the reason says it was calibrated; a part without a figure
// (or other conditions) falls back to the generic band of nominal and says so by its wording.
#include "analysis/load/observations.hpp"
#include "analysis/rules/figures/threshold_rule.hpp"
#include "analysis/rules/settings/calibration.hpp"
#include "analysis/rules/settings/thresholds.hpp"
#include "analysis_fixtures.hpp"
#include "core/errors.hpp"
#include "core/registry.hpp"

#include <gtest/gtest.h>

#include <fnmatch.h>

namespace shakedown::analysis {
namespace {

const Thresholds& built_in() {
    static const Thresholds thresholds = Thresholds::built_in();
    return thresholds;
}

MetricJudgment judge(double tflops, const std::string& gpu, const std::string& fill = "uniform") {
    const Metric metric{"dgemm_fp64.tflops", "TFLOP/s", tflops, 67.0, Better::higher};
    const auto* calibrated = built_in().calibration().find(metric.name, gpu, {{"fill", fill}}, 1);
    return judge_metric(metric, built_in().rule_for(metric.name), calibrated, built_in().calibration().bands());
}

TEST(Calibration, AHealthyH200PassesWhereTheDatasheetWouldWarn) {
    EXPECT_EQ(judge(56.2, "NVIDIA H200").level, Level::pass);  // 0.84 of nominal: the generic band warns below 0.85
    // A part without calibrated figures is judged by the rule's fraction of nominal ("of nominal").
    EXPECT_EQ(judge(40.0, "NVIDIA A100-SXM4-80GB").level, Level::warn);
    EXPECT_EQ(judge(40.0, "NVIDIA A100-SXM4-80GB").reason,
              "dgemm_fp64.tflops 40 TFLOP/s is 0.60 of nominal 67 (warn below 0.65)");
}

TEST(Calibration, TenPercentBelowHealthyWarnsAndAQuarterBelowFails) {
    const MetricJudgment warn = judge(0.84 * 67 * 0.88, "NVIDIA H200");
    EXPECT_EQ(warn.level, Level::warn);
    EXPECT_EQ(warn.reason, "dgemm_fp64.tflops 49.5 TFLOP/s is 0.88 of a healthy H200's 56.3 TFLOP/s (calibrated: 0.84 of "
                           "nominal 67; warn below 0.90 of it)");
    ASSERT_TRUE(warn.reference);
    EXPECT_NEAR(*warn.reference, 0.84 * 67, 1e-9);
    EXPECT_EQ(judge(0.84 * 67 * 0.74, "NVIDIA H200").level, Level::fail);
    EXPECT_EQ(judge(0.84 * 67 * 0.91, "NVIDIA H200").level, Level::pass);
}

TEST(Calibration, ConditionsMustHold) {
    // Small integers keep the clock up: their healthy figure is 0.97, so 56.2 is a shortfall there.
    EXPECT_EQ(judge(56.2, "NVIDIA H200", "small_integers").level, Level::warn);
    EXPECT_EQ(judge(65.2, "NVIDIA H200", "small_integers").level, Level::pass);
    const auto& calibration = built_in().calibration();
    EXPECT_EQ(calibration.find("dgemm_fp64.tflops", "NVIDIA H200", {}, 1), nullptr);  // fill not recorded: generic
    EXPECT_EQ(calibration.find("dgemm_fp64.tflops", "", {{"fill", "uniform"}}, 1), nullptr);  // a host rank
    // A GPU node's rank that ran the test on its host cores: the CPU's figure, not the H200's.
    EXPECT_EQ(calibration.find("dgemm_fp64.tflops", "NVIDIA H200", {{"fill", "uniform"}, {"device", "host"}}, 1), nullptr);
    EXPECT_NE(calibration.find("dgemm_fp64.tflops", "NVIDIA H200", {{"fill", "uniform"}, {"device", "gpu"}}, 1), nullptr);
    EXPECT_NE(calibration.find("nccl.all_reduce_busbw_8mib_gbs", "NVIDIA H200", {}, 2), nullptr);
    EXPECT_EQ(calibration.find("nccl.all_reduce_busbw_8mib_gbs", "NVIDIA H200", {}, 8), nullptr);  // other rank count
}

TEST(Calibration, AbsoluteHealthyValueJudgesFiguresWithoutANominal) {
    const Metric metric{"nccl.all_reduce_busbw_8mib_gbs", "GB/s", 120.0, std::nullopt, Better::higher};
    const auto* calibrated = built_in().calibration().find(metric.name, "NVIDIA H200", {}, 2);
    ASSERT_NE(calibrated, nullptr);
    const MetricJudgment judgment =
        judge_metric(metric, built_in().rule_for(metric.name), calibrated, built_in().calibration().bands());
    EXPECT_EQ(judgment.level, Level::fail);  // 0.68 of 176.5
    EXPECT_NE(judgment.reason.find("is 0.68 of a healthy H200's 176 GB/s (calibrated: measured on healthy hardware"),
              std::string::npos)
        << judgment.reason;
}

TEST(Calibration, EveryBuiltInEntryNamesADeclaredMetricItsRuleLetsItJudgeAndSaysWhereItWasMeasured) {
    std::vector<std::string> declared;
    for (const auto& test : Registry::instance().tests())
        for (std::string& name : test->spec().metric_names()) declared.push_back(std::move(name));
    const auto& references = built_in().calibration().references();
    ASSERT_GE(references.size(), 15u);
    for (const CalibratedReference& reference : references) {
        SCOPED_TRACE(reference.origin);
        const auto matching = std::find_if(declared.begin(), declared.end(), [&](const std::string& name) {
            return name == reference.metric || fnmatch(reference.metric.c_str(), name.c_str(), 0) == 0;
        });
        ASSERT_NE(matching, declared.end()) << reference.metric;
        const MetricRule* rule = built_in().rule_for(*matching);
        ASSERT_NE(rule, nullptr) << *matching;
        EXPECT_TRUE(rule->fraction_of_nominal.has_value() || rule->calibrated)
            << *matching << ": a calibrated figure judges only a rule with fraction_of_nominal or calibrated: true";
        EXPECT_FALSE(reference.source.empty());
        EXPECT_FALSE(reference.measured.empty());
    }
}

// A measured figure above a peak nominal means the nominal is wrong: a WARN to fix, not a pass.
// A job-wide figure is matched by the ranks it was measured over (NCCL's communicator), not the
// run's: the H200 NCCL rows are for 2 GPUs.
std::vector<Finding> nccl_findings(const std::string& communicator_ranks, double busbw) {
    auto traces = testing::healthy_traces(2, 2);
    TestResult nccl;
    nccl.key = "nccl";
    nccl.parameters["communicator_ranks"] = communicator_ranks;
    nccl.metrics.push_back(Metric{"nccl.all_reduce_busbw_8mib_gbs", "GB/s", busbw, std::nullopt, Better::higher});
    traces[0].tests.push_back(nccl);
    LoadedRun run = testing::loaded_run(traces);
    for (RankRecord& rank : run.ranks) rank.gpu_name = "NVIDIA H200";
    return threshold_findings(Observations(run), built_in());
}

TEST(Calibration, JobWideFiguresAreMatchedByTheRanksTheyWereMeasuredOver) {
    ASSERT_EQ(nccl_findings("2", 120.0).size(), 1u);  // 0.68 of the healthy 176.5 over 2 GPUs
    EXPECT_EQ(nccl_findings("2", 120.0)[0].level, Level::fail);
    EXPECT_TRUE(nccl_findings("2", 170.0).empty());  // healthy over 2 GPUs: not flagged
    EXPECT_TRUE(nccl_findings("1", 120.0).empty());  // over one GPU the 2-GPU figure does not hold
}

TEST(NominalCredibility, AFigureAboveItsPeakNominalWarnsAsConfiguration) {
    const Metric dgemm{"dgemm_fp64.tflops", "TFLOP/s", 0.0812, 0.0736, Better::higher};
    const MetricJudgment judgment = judge_metric(dgemm, built_in().rule_for(dgemm.name));
    EXPECT_EQ(judgment.level, Level::warn);
    EXPECT_EQ(judgment.cause, Cause::configuration);
    EXPECT_EQ(judgment.reason, "nominal not credible: dgemm_fp64.tflops 0.0812 TFLOP/s is 1.10 x its nominal 0.0736 "
                               "TFLOP/s (warn above 1.05 x): the nominal undercounts this part (its clock or its FMA "
                               "units); fix the nominal before judging by it");
}

TEST(NominalCredibility, OneCoresPeakAboveTheDerivedFigureIsNotJudged) {
    // A VM hides the boost clock: the derived per-core figure undercounts the core. Nothing judges
    // by it (the DGEMM's reference is the measured peak), so it is said in the detail, not a WARN.
    const Metric above{"dgemm_fp64.core_peak_gflops", "GFLOP/s", 110.0, 86.2, Better::higher};
    EXPECT_EQ(judge_metric(above, built_in().rule_for(above.name)).level, Level::pass);
}

TEST(NominalCredibility, AFigureAtOrBelowItsNominalIsNotFlagged) {
    const Metric below{"dgemm_fp64.core_peak_gflops", "GFLOP/s", 70.0, 73.6, Better::higher};
    EXPECT_EQ(judge_metric(below, built_in().rule_for(below.name)).level, Level::pass);
    // 1 % over: four ranks time-sharing two cores unevenly (measured here), not a wrong nominal.
    const Metric noise{"dgemm_fp64.tflops", "TFLOP/s", 0.0372, 0.0368, Better::higher};
    EXPECT_EQ(judge_metric(noise, built_in().rule_for(noise.name)).level, Level::pass);
    const Metric stream{"stream.triad_gbs", "GB/s", 5000.0, 4800.0, Better::higher};  // no ceiling rule: not judged so
    EXPECT_EQ(judge_metric(stream, built_in().rule_for(stream.name)).level, Level::pass);
}

TEST(Calibration, AMalformedFileIsOneLineWithItsPlace) {
    try {
        (void)CalibratedReferences::parse("references:\n  - {part: H200, metric: x.y_gbs, healthy_fraction: 0.9}\n", "c.yaml");
        FAIL() << "accepted an entry without a source";
    } catch (const InputError& error) {
        EXPECT_STREQ(error.what(), "c.yaml:2: references: an entry needs its source (where it was measured)");
    }
    EXPECT_THROW((void)CalibratedReferences::parse("references:\n  - {part: H200, metric: x, source: s}\n", "c.yaml"),
                 InputError);  // neither healthy_fraction nor healthy_value
}


TEST(Calibration, AHealthyH100PassesAndAQuarterBelowFails) {
    // 55.4-56.4 TFLOP/s measured on an H100 SXM (calibrated.yaml): 0.83-0.84 of nominal, below the
    // generic host band's 0.85 and above the GPU band's 0.75.
    EXPECT_EQ(judge(55.4, "NVIDIA H100 80GB HBM3").level, Level::pass);
    EXPECT_EQ(judge(65.0, "NVIDIA H100 80GB HBM3", "small_integers").level, Level::pass);
    EXPECT_EQ(judge(0.83 * 67 * 0.85, "NVIDIA H100 80GB HBM3").level, Level::warn);
    EXPECT_EQ(judge(34.0, "NVIDIA H100 80GB HBM3").level, Level::fail);  // the planted 50 ms delay gave 34.0
    // The PCIe part has another power limit and nominal: the SXM figure is not its figure.
    EXPECT_EQ(built_in().calibration().find("dgemm_fp64.tflops", "NVIDIA H100 PCIe", {{"fill", "uniform"}}, 1), nullptr);
}

MetricJudgment judge_uncalibrated_gpu(double tflops, double nominal, const std::string& gpu) {
    const Metric metric{"dgemm_fp64.tflops", "TFLOP/s", tflops, nominal, Better::higher};
    return judge_metric(metric, built_in().rule_for(metric.name), nullptr, built_in().calibration().bands(), gpu);
}

TEST(GenericBand, AHealthyUncalibratedGpuAtItsPowerCappedRateIsNotFlagged) {
    // 0.82 of nominal: what a healthy power-capped part gives on uniform data.
    EXPECT_EQ(judge_uncalibrated_gpu(0.82 * 1.43, 1.43, "NVIDIA L40S").level, Level::pass);
    // A host keeps its own band, against the cores' peak measured in the same test (0.65).
    const Metric host{"dgemm_fp64.tflops", "TFLOP/s", 0.62 * 1.2, 1.2, Better::higher};
    EXPECT_EQ(judge_metric(host, built_in().rule_for(host.name)).level, Level::warn);
    EXPECT_EQ(judge_uncalibrated_gpu(0.62 * 1.43, 1.43, "NVIDIA L40S").level, Level::warn);  // and a GPU's is its own
}

TEST(GenericBand, AShortfallOnAnUncalibratedGpuSaysTheBandIsGenericAndHowToCalibrate) {
    const MetricJudgment warn = judge_uncalibrated_gpu(0.70 * 1.43, 1.43, "NVIDIA L40S");
    EXPECT_EQ(warn.level, Level::warn);
    EXPECT_EQ(warn.reason, "dgemm_fp64.tflops 1 TFLOP/s is 0.70 of nominal 1.43 (warn below 0.75); generic band: no "
                           "calibrated figure for NVIDIA L40S (shakedown-analyze calibrate on healthy nodes of this part "
                           "writes one)");
    EXPECT_EQ(judge_uncalibrated_gpu(0.55 * 1.43, 1.43, "NVIDIA L40S").level, Level::fail);
}

TEST(SiteCalibration, ASiteFileIsJudgedFirstWithItsOwnBandsAndTheBuiltInEntriesKeepTheirs) {
    const CalibratedReferences site = CalibratedReferences::parse(
        "bands: {warn_below: 0.95, fail_below: 0.9}\n"
        "references:\n"
        "  - {part: H200, metric: dgemm_fp64.tflops, when: {fill: uniform}, healthy_fraction: 0.86, source: golden}\n"
        "  - {part: L40S, metric: dgemm_fp64.tflops, healthy_fraction: 0.9, warn_below: 0.97, fail_below: 0.93, "
        "source: golden}\n",
        "site.yaml");
    const Thresholds merged = built_in().with_calibration_over(site);
    const CalibratedReferences& calibration = merged.calibration();
    const CalibratedReference* h200 = calibration.find("dgemm_fp64.tflops", "NVIDIA H200", {{"fill", "uniform"}}, 1);
    ASSERT_NE(h200, nullptr);
    EXPECT_EQ(h200->source, "golden");  // the site's entry wins
    EXPECT_DOUBLE_EQ(calibration.bands_of(*h200).fail_below, 0.9);
    const CalibratedReference* l40s = calibration.find("dgemm_fp64.tflops", "NVIDIA L40S", {}, 1);
    ASSERT_NE(l40s, nullptr);
    EXPECT_DOUBLE_EQ(calibration.bands_of(*l40s).warn_below, 0.97);
    const CalibratedReference* small = calibration.find("dgemm_fp64.tflops", "NVIDIA H200", {{"fill", "small_integers"}}, 1);
    ASSERT_NE(small, nullptr);  // the built-in entry, with the built-in bands
    EXPECT_DOUBLE_EQ(calibration.bands_of(*small).fail_below, 0.75);
    // 0.88 of the site's healthy H200 figure: a FAIL by its bands, a WARN by the built-in ones.
    const Metric metric{"dgemm_fp64.tflops", "TFLOP/s", 0.86 * 67 * 0.88, 67.0, Better::higher};
    EXPECT_EQ(judge_metric(metric, merged.rule_for(metric.name), h200, calibration.bands_of(*h200)).level, Level::fail);
}

TEST(SiteCalibration, EntryBandsOutOfOrderAreRefused) {
    EXPECT_THROW((void)CalibratedReferences::parse("references:\n  - {part: X, metric: m, healthy_value: 1, warn_below: 0.8, "
                                                   "fail_below: 0.9, source: s}\n", "c.yaml"),
                 InputError);
}

}  // namespace
}  // namespace shakedown::analysis
