// A host DGEMM is judged against its cores' measured FMA peak at the BLAS kernel's width; the
// kernel's fit to the CPU is read from the node's inventory. Planted: OpenBLAS falling back to
// its Prescott (SSE2) kernels on an AVX-512 CPU, detected and forced; healthy twins: the
// library's own AVX2 kernels on an AVX-512 core, OPENBLAS_CORETYPE=Haswell there, full-width
// kernels, and a DGEMM that ran on the GPU.
#include "analysis/load/observations.hpp"
#include "analysis/load/run_details.hpp"
#include "analysis/rules/model/apply_rules.hpp"
#include "analysis/rules/model/verdicts.hpp"
#include "analysis_fixtures.hpp"

#include <gtest/gtest.h>

#include <algorithm>

namespace shakedown::analysis {
namespace {

const nlohmann::json avx512_flags = {"sse2", "avx", "avx2", "fma", "avx512f"};

struct Planted {
    std::string core = "Haswell";
    std::string forced;             // OPENBLAS_CORETYPE as the run saw it ("": unset)
    std::string device = "host";
    double fraction = 0.88;         // the DGEMM's figure over its (measured) nominal
};

LoadedRun run_with(const Planted& planted) {
    auto traces = testing::healthy_traces(2, 1);
    for (Trace& trace : traces) {
        trace.inventory = {{"cpu", {{"model", "Test EPYC"}, {"flags", avx512_flags}}},
                           {"blas", {{"openblas_core", planted.core}}}};
        if (!planted.forced.empty()) trace.inventory["blas"]["openblas_coretype_env"] = planted.forced;
        TestResult dgemm;
        dgemm.key = "dgemm_fp64";
        dgemm.start_utc = 1764480003.0;
        dgemm.end_utc = 1764480003.5;
        dgemm.parameters["device"] = planted.device;
        dgemm.metrics.push_back(Metric{"dgemm_fp64.tflops", "TFLOP/s", 0.05 * planted.fraction, 0.05, Better::higher});
        trace.tests.push_back(dgemm);
    }
    LoadedRun run = testing::loaded_run(traces);
    for (RankRecord& rank : run.ranks) rank.inventory_read = true;
    return run;
}

AnalysisResult analyze(const LoadedRun& run) {
    const Observations observations(run);
    RunDetails details(run);
    return apply_rules(observations, Thresholds::built_in(), nullptr, nullptr, details);
}

std::vector<Finding> dgemm_findings(const AnalysisResult& result) {
    std::vector<Finding> found;
    for (const NodeVerdict& node : result.judgement.nodes)
        for (const Finding& finding : node.findings)
            if (finding.test == "dgemm_fp64") found.push_back(finding);
    return found;
}

const Finding* kernel_finding(const std::vector<Finding>& findings) {
    const auto it = std::find_if(findings.begin(), findings.end(),
                                 [](const Finding& f) { return f.code == ReasonCode::blas_kernel_narrow; });
    return it == findings.end() ? nullptr : &*it;
}

TEST(BlasKernelRule, AMisdetectedCoreIsConfigurationToFixOnEveryNode) {
    const LoadedRun run = run_with({.core = "Prescott"});
    const auto findings = dgemm_findings(analyze(run));
    ASSERT_EQ(findings.size(), 2u);  // one per node
    for (const Finding& finding : findings) {
        EXPECT_EQ(finding.code, ReasonCode::blas_kernel_narrow);
        EXPECT_EQ(finding.level, Level::fail);
        EXPECT_EQ(finding.cause, Cause::configuration);
        EXPECT_EQ(finding.source, FindingSource::software_stack);
        EXPECT_EQ(finding.reason, "OpenBLAS runs its Prescott kernels (SSE2) on Test EPYC, which has AVX-512+FMA: "
                                  "OpenBLAS did not recognize the core; set OPENBLAS_CORETYPE=SkylakeX for the job (or "
                                  "use a BLAS that knows this CPU)");
    }
}

TEST(BlasKernelRule, AForcedNarrowCoreNamesTheVariable) {
    const auto findings = dgemm_findings(analyze(run_with({.core = "Prescott", .forced = "Prescott"})));
    const Finding* kernel = kernel_finding(findings);
    ASSERT_NE(kernel, nullptr);
    EXPECT_NE(kernel->reason.find("OPENBLAS_CORETYPE=Prescott forces them; name a SkylakeX core there"), std::string::npos)
        << kernel->reason;
}

TEST(BlasKernelRule, TheDgemmShortfallOfAMisdetectedKernelDrainsNothing) {
    const LoadedRun run = run_with({.core = "Prescott", .fraction = 0.3});
    const AnalysisResult result = analyze(run);
    const auto findings = dgemm_findings(result);
    const auto figure = std::find_if(findings.begin(), findings.end(),
                                     [](const Finding& f) { return f.metric == "dgemm_fp64.tflops"; });
    ASSERT_NE(figure, findings.end());
    EXPECT_EQ(figure->level, Level::fail);
    EXPECT_EQ(figure->cause, Cause::configuration);
    EXPECT_NE(figure->reason.find("not the hardware's"), std::string::npos) << figure->reason;
    for (const NodeVerdict& node : result.judgement.nodes) EXPECT_EQ(node.hardware_failures(), 0) << node.node;
    EXPECT_EQ(result.judgement.exit_code(), 2);  // to fix, not failed
}

TEST(BlasKernelRule, TheSameShortfallWithAFittingKernelIsTheHardwares) {
    const auto findings = dgemm_findings(analyze(run_with({.core = "Cooperlake", .fraction = 0.3})));
    ASSERT_EQ(findings.size(), 2u);
    for (const Finding& finding : findings) {
        EXPECT_EQ(finding.metric, "dgemm_fp64.tflops");
        EXPECT_EQ(finding.cause, Cause::hardware);
    }
}

TEST(BlasKernelRule, HealthyKernelsAreNotFlagged) {
    EXPECT_TRUE(dgemm_findings(analyze(run_with({.core = "Cooperlake"}))).empty());  // full width
    EXPECT_TRUE(dgemm_findings(analyze(run_with({.core = "Zen"}))).empty());         // the library's AVX2 kernels
    EXPECT_TRUE(dgemm_findings(analyze(run_with({.core = "Haswell", .forced = "Haswell"}))).empty());  // the site's choice
    EXPECT_TRUE(dgemm_findings(analyze(run_with({.core = "NewCore2031"}))).empty());  // a family this table does not know
}

TEST(BlasKernelRule, ADgemmOnTheGpuIsNotTheHostBlas) {
    EXPECT_TRUE(dgemm_findings(analyze(run_with({.core = "Prescott", .device = "gpu"}))).empty());
}

}  // namespace
}  // namespace shakedown::analysis
