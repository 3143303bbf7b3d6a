// A test a GPU node's rank ran on its host cores (device: host) is judged as the host's: its
// findings name no GPU, so the report gives it no GPU row and no GPU telemetry explains it.
#include "analysis/load/observations.hpp"
#include "analysis/load/run_details.hpp"
#include "analysis/rules/model/apply_rules.hpp"
#include "analysis_fixtures.hpp"

#include <gtest/gtest.h>

namespace shakedown::analysis {
namespace {

LoadedRun gpu_node_run(const std::string& stream_device) {
    auto traces = testing::healthy_traces(1, 1);
    TestResult& stream = testing::test_named(traces[0], "stream");
    stream.parameters["device"] = stream_device;
    testing::metric_named(traces[0], "stream.triad_gbs").value = 2.0;  // 0.25 of nominal: a FAIL
    LoadedRun run = testing::loaded_run(traces);
    run.ranks[0].gpu = 0;
    run.ranks[0].gpu_uuid = "GPU-0f3c";
    return run;
}

const Finding& stream_finding(const AnalysisResult& result) {
    for (const NodeVerdict& node : result.judgement.nodes)
        for (const Finding& finding : node.findings)
            if (finding.test == "stream") return finding;
    throw std::runtime_error("no stream finding");
}

TEST(HostResults, AHostRunOnAGpuNodeNamesNoGpu) {
    const LoadedRun run = gpu_node_run("host");
    const Observations observations(run);
    RunDetails details(run);
    const AnalysisResult result = apply_rules(observations, Thresholds::built_in(), nullptr, nullptr, details);
    const Finding& finding = stream_finding(result);
    EXPECT_EQ(finding.level, Level::fail);
    EXPECT_FALSE(finding.gpu.has_value());
    EXPECT_TRUE(finding.gpu_uuid.empty());
}

TEST(HostResults, AGpuRunKeepsItsGpu) {
    const LoadedRun run = gpu_node_run("gpu");
    const Observations observations(run);
    RunDetails details(run);
    const AnalysisResult result = apply_rules(observations, Thresholds::built_in(), nullptr, nullptr, details);
    const Finding& finding = stream_finding(result);
    ASSERT_TRUE(finding.gpu.has_value());
    EXPECT_EQ(*finding.gpu, 0);
    EXPECT_EQ(finding.gpu_uuid, "GPU-0f3c");
}

}  // namespace
}  // namespace shakedown::analysis
