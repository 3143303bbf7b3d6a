// shakedown-analyze calibrate: a site's calibrated figures from its healthy reference runs. Three
// synthetic healthy runs of a part no built-in entry knows (the L40S) give a file the analyzer
// takes with --calibrated, against which a node 15 % slower FAILs; runs that are not healthy,
// that mix parts, or are too few are refused with one line and nothing written. Without a
// calibration the same part is judged by its generic GPU band and by the fleet: a healthy fleet
// passes, a node at 0.85 of the others is named.
#include "analysis/analyzer.hpp"
#include "analysis/calibrate/calibrate_runs.hpp"
#include "analysis/rules/settings/calibration.hpp"
#include "analysis_fixtures.hpp"

#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>

namespace shakedown::analysis {
namespace {

constexpr const char* l40s = "NVIDIA L40S";
constexpr double l40s_fp64_nominal = 1.43;       // src/hardware/gpu_specs.yaml
constexpr double healthy_dgemm_fraction = 0.92;  // a synthetic healthy figure (no measured L40S here)

// One rank per node, 4 nodes, each with its GPU's DGEMM at `fraction[rank]` of nominal beside the
// fixtures' stream and ping-pong.
std::vector<Trace> gpu_traces(const std::vector<double>& fraction) {
    const int world_size = static_cast<int>(fraction.size());
    std::vector<Trace> traces = testing::healthy_traces(world_size, 1);
    for (int rank = 0; rank < world_size; ++rank) {
        TestResult dgemm;
        dgemm.key = "dgemm_fp64";
        dgemm.start_utc = 1764480003.0;
        dgemm.end_utc = 1764480004.0;
        dgemm.parameters = {{"device", "gpu"}, {"fill", "uniform"}, {"n", "auto"}, {"repetitions", "5"},
                            {"checksum_worst_ratio", std::to_string(0.01 * rank)}};  // an outcome, not a condition
        dgemm.metrics.push_back(Metric{"dgemm_fp64.tflops", "TFLOP/s", fraction[rank] * l40s_fp64_nominal,
                                       l40s_fp64_nominal, Better::higher});
        traces[rank].tests.push_back(dgemm);
    }
    return traces;
}

std::filesystem::path gpu_run(const std::filesystem::path& dir, const std::vector<double>& fraction,
                              const std::string& part = l40s) {
    return testing::write_gpu_run(dir, gpu_traces(fraction), std::vector<std::string>(fraction.size(), part),
                                  {"stream", "mpi_pingpong", "dgemm_fp64"});
}

struct Outcome {
    int code = 0;
    std::string out;
    std::string err;
};

Outcome run_calibrate(const std::vector<std::filesystem::path>& runs, const std::filesystem::path& output) {
    CalibrateOptions options;
    options.runs = runs;
    options.output = output;
    std::ostringstream out;
    std::ostringstream err;
    const int code = calibrate(options, out, err);
    return {code, out.str(), err.str()};
}

struct Analysis {
    int code = 0;
    nlohmann::json summary;
};

Analysis run_analyze(const std::filesystem::path& run, const std::optional<std::filesystem::path>& calibrated,
                     const std::optional<std::filesystem::path>& thresholds = std::nullopt) {
    AnalyzeOptions options;
    options.thresholds_file = thresholds;
    options.run_dir = run;
    options.write_html = false;
    options.quiet = true;
    options.calibrated_file = calibrated;
    std::ostringstream out;
    std::ostringstream err;
    Analysis analysis;
    analysis.code = analyze(options, out, err);
    analysis.summary = nlohmann::json::parse(testing::read_text(run / "summary.json"));
    return analysis;
}

// Every finding's "node: reason" of a summary.
std::vector<std::string> findings_of(const nlohmann::json& summary) {
    std::vector<std::string> findings;
    for (const auto& node : summary["nodes"])
        for (const auto& finding : node["findings"])
            findings.push_back(node["node"].get<std::string>() + ": " + finding["reason"].get<std::string>());
    return findings;
}

class CalibrateCommand : public ::testing::Test {
protected:
    std::vector<std::filesystem::path> healthy_runs() {
        return {gpu_run(dir.path() / "golden-1", {0.92, 0.93, 0.92, 0.91}),
                gpu_run(dir.path() / "golden-2", {0.93, 0.92, 0.92, 0.92}),
                gpu_run(dir.path() / "golden-3", {0.91, 0.92, 0.93, 0.92})};
    }
    testing::TempDir dir;
};

TEST_F(CalibrateCommand, HealthyRunsGiveAFileAgainstWhichANodeFifteenPercentSlowerFails) {
    const auto output = dir.path() / "l40s.yaml";
    const Outcome written = run_calibrate(healthy_runs(), output);
    ASSERT_EQ(written.code, 0) << written.err;
    EXPECT_NE(written.out.find("of NVIDIA L40S from 3 runs"), std::string::npos) << written.out;
    const CalibratedReferences file = CalibratedReferences::from_file(output.string());
    const CalibratedReference* dgemm =
        file.find("dgemm_fp64.tflops", l40s, {{"device", "gpu"}, {"fill", "uniform"}, {"n", "auto"}, {"repetitions", "5"}}, 4);
    ASSERT_NE(dgemm, nullptr);
    ASSERT_TRUE(dgemm->healthy_fraction);
    EXPECT_NEAR(*dgemm->healthy_fraction, 0.92, 1e-9);  // the median of the 12 GPUs
    EXPECT_EQ(dgemm->when.count("checksum_worst_ratio"), 0u);  // a recorded outcome is no condition
    ASSERT_TRUE(dgemm->bands);
    EXPECT_DOUBLE_EQ(dgemm->bands->warn_below, 0.95);
    EXPECT_DOUBLE_EQ(dgemm->bands->fail_below, 0.90);

    const auto slow = gpu_run(dir.path() / "slow", {0.92, 0.92, 0.85 * 0.92, 0.92});
    const Analysis judged = run_analyze(slow, output);
    EXPECT_EQ(judged.code, 1);
    const auto findings = findings_of(judged.summary);
    ASSERT_FALSE(findings.empty());
    EXPECT_NE(findings[0].find("node0002: dgemm_fp64.tflops"), std::string::npos) << findings[0];
    EXPECT_NE(findings[0].find("of a healthy NVIDIA L40S's"), std::string::npos) << findings[0];
    EXPECT_NE(findings[0].find("fail below 0.90"), std::string::npos) << findings[0];

    // The same file named in a thresholds file, as a path beside it.
    const auto thresholds = dir.path() / "site-thresholds.yaml";
    { std::ofstream(thresholds) << "metrics: {}\ncalibrated: l40s.yaml\n"; }
    EXPECT_EQ(run_analyze(slow, std::nullopt, thresholds).code, 1);
    EXPECT_EQ(run_analyze(slow, std::nullopt).code, 0);  // without it: 0.85 of the others is a fleet WARN only

    const auto healthy = gpu_run(dir.path() / "healthy", {0.92, 0.91, 0.93, 0.92});
    const Analysis passed = run_analyze(healthy, output);
    EXPECT_EQ(passed.code, 0);
    EXPECT_EQ(passed.summary["verdict"], "pass") << findings_of(passed.summary).size();
}

TEST_F(CalibrateCommand, RunsOfMixedPartsAreRefusedWithOneLineAndNothingWritten) {
    auto runs = healthy_runs();
    runs.push_back(gpu_run(dir.path() / "other-part", {0.9, 0.9, 0.9, 0.9}, "NVIDIA L20"));
    const auto output = dir.path() / "mixed.yaml";
    const Outcome refused = run_calibrate(runs, output);
    EXPECT_EQ(refused.code, 2);
    EXPECT_NE(refused.err.find("the runs mix parts: NVIDIA L20"), std::string::npos) << refused.err;
    EXPECT_EQ(std::count(refused.err.begin(), refused.err.end(), '\n'), 1);
    EXPECT_FALSE(std::filesystem::exists(output));
}

TEST_F(CalibrateCommand, ARunThatIsNotHealthyIsRefused) {
    auto runs = healthy_runs();
    runs[1] = gpu_run(dir.path() / "broken", {0.92, 0.92, 0.3, 0.92});  // 0.3 of nominal: below the GPU FAIL band
    const auto output = dir.path() / "broken.yaml";
    const Outcome refused = run_calibrate(runs, output);
    EXPECT_EQ(refused.code, 2);
    EXPECT_NE(refused.err.find("is not a healthy run (verdict fail: node0002: dgemm_fp64.tflops"), std::string::npos)
        << refused.err;
    EXPECT_FALSE(std::filesystem::exists(output));
}

TEST_F(CalibrateCommand, TooFewRunsAndAnExistingOutputAreRefused) {
    const auto runs = healthy_runs();
    const Outcome too_few = run_calibrate({runs[0], runs[1]}, dir.path() / "two.yaml");
    EXPECT_EQ(too_few.code, 2);
    EXPECT_EQ(too_few.err, "shakedown-analyze: calibrate: 2 run(s) given: a calibration needs at least 3 healthy runs "
                           "of the part (--min-runs)\n");
    const auto existing = dir.path() / "kept.yaml";
    { std::ofstream(existing) << "a site's earlier calibration\n"; }
    const Outcome kept = run_calibrate(runs, existing);
    EXPECT_EQ(kept.code, 2);
    EXPECT_NE(kept.err.find("exists: calibrate never overwrites"), std::string::npos) << kept.err;
    EXPECT_EQ(testing::read_text(existing), "a site's earlier calibration\n");
}

TEST_F(CalibrateCommand, AnUncalibratedPartsHealthyFleetPassesAndANodeAt85PercentOfTheOthersIsNamed) {
    // No calibration: the generic GPU band (0.75 of nominal) and the fleet judge the L40S.
    const Analysis healthy = run_analyze(gpu_run(dir.path() / "fleet", {0.92, 0.91, 0.93, 0.92}), std::nullopt);
    EXPECT_EQ(healthy.code, 0);
    EXPECT_EQ(healthy.summary["verdict"], "pass");
    const Analysis slow = run_analyze(gpu_run(dir.path() / "fleet-slow", {0.92, 0.92, 0.85 * 0.92, 0.92, 0.91}),
                                      std::nullopt);
    const auto findings = findings_of(slow.summary);
    ASSERT_EQ(findings.size(), 1u) << (findings.empty() ? "" : findings[0]);
    EXPECT_EQ(findings[0].rfind("node0002: ", 0), 0u) << findings[0];
    EXPECT_NE(findings[0].find("dgemm_fp64.tflops"), std::string::npos) << findings[0];
}

}  // namespace
}  // namespace shakedown::analysis
