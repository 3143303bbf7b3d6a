// The expected profile through the analyzer: run folders written with the real TraceWriter, the
// nodes' inventories made up (this machine has no GPU): a node that is what was bought passes;
// a missing GPU, an expected test that waived, a node the profile does not know are named.
#include "analysis/load/observations.hpp"
#include "analysis/load/run_details.hpp"
#include "analysis/load/run_loader.hpp"
#include "analysis/rules/model/apply_rules.hpp"
#include "analysis_fixtures.hpp"
#include "core/registry.hpp"
#include "core/waiver_reasons.hpp"
#include "profile/profile.hpp"

#include <gtest/gtest.h>

namespace shakedown::analysis {
namespace {

using testing::healthy_traces;
using testing::TempDir;

nlohmann::json gpu_node_inventory(int gpus) {
    nlohmann::json devices = nlohmann::json::array();
    for (int i = 0; i < gpus; ++i)
        devices.push_back({{"name", "NVIDIA H200"}, {"uuid", "GPU-" + std::to_string(i)},
                           {"pci_bus_id", i == 0 ? "00000000:19:00.0" : "00000000:9B:00.0"}, {"memory_bytes", 150754820096.0}});
    return {{"cpu", {{"model", "test cpu"}, {"cores", 8}}}, {"nvml", {{"loaded", true}, {"devices", devices}}}};
}

const char* two_gpu_profile = R"(classes:
  - nodes: node[0000-0001]
    gpus_per_node: 2
    gpu: {model: H200, bus_ids: ["0000:19:00.0", "0000:9b:00.0"]}
    tests: [stream, mpi_pingpong]
)";

Judgement judge_with_profile(const TempDir& temp, std::vector<Trace> traces, const std::string& profile_text,
                             const std::vector<std::string>& listed = {"stream", "mpi_pingpong"}) {
    const auto dir = testing::write_run(temp.path() / "run", traces, "complete", listed);
    const LoadedRun run = load_run(dir, {});
    const Observations observations(run);
    RunDetails details(run);
    const profile::Profile profile = profile::parse_profile(profile_text, "p.yaml", Registry::instance().keys());
    return apply_rules(observations, Thresholds::built_in(), nullptr, nullptr, details, &profile).judgement;
}

std::vector<std::string> reasons_of(const NodeVerdict& node) {
    std::vector<std::string> reasons;
    for (const Finding& finding : node.findings) reasons.push_back(finding.reason);
    return reasons;
}

TEST(ProfileRule, NodesThatAreWhatWasBoughtPass) {
    TempDir temp;
    auto traces = healthy_traces(4, 2);
    for (Trace& trace : traces) trace.inventory = gpu_node_inventory(2);
    const Judgement judgement = judge_with_profile(temp, traces, two_gpu_profile);
    for (const NodeVerdict& node : judgement.nodes) {
        EXPECT_EQ(node.verdict, Verdict::pass) << node.node;
        EXPECT_TRUE(node.findings.empty()) << node.node;
    }
    EXPECT_EQ(judgement.exit_code(), 0);
}

TEST(ProfileRule, AMissingGpuFailsTheNodeNamingIt) {
    TempDir temp;
    auto traces = healthy_traces(4, 2);
    for (Trace& trace : traces) trace.inventory = gpu_node_inventory(2);
    traces[2].inventory = gpu_node_inventory(1);  // node0001's leader sees one GPU
    const Judgement judgement = judge_with_profile(temp, traces, two_gpu_profile);
    EXPECT_EQ(judgement.nodes[0].verdict, Verdict::pass);
    const NodeVerdict& node = judgement.nodes[1];
    EXPECT_EQ(node.verdict, Verdict::fail);
    EXPECT_EQ(reasons_of(node), std::vector<std::string>{"node0001: 1 of 2 GPUs (H200) found; missing 0000:9b:00.0"});
    EXPECT_EQ(node.findings[0].test, "profile");
    EXPECT_EQ(node.findings[0].cause, Cause::hardware);
}

TEST(ProfileRule, AnExpectedTestThatWaivedIsNotAPass) {
    TempDir temp;
    auto traces = healthy_traces(4, 2);
    for (Trace& trace : traces) trace.inventory = gpu_node_inventory(2);
    for (int rank : {0, 1}) testing::test_named(traces[rank], "stream").waive("no CUDA device");
    const Judgement judgement = judge_with_profile(temp, traces, two_gpu_profile);
    const NodeVerdict& node = judgement.nodes[0];
    EXPECT_EQ(node.verdict, Verdict::fail);
    EXPECT_EQ(reasons_of(node),
              std::vector<std::string>{"not run is not a pass: stream waived on every rank of node0000 (no CUDA device)"});
    EXPECT_EQ(judgement.nodes[1].verdict, Verdict::pass);
}

// nccl on a job with one GPU: the job was too small for it, the node showed nothing missing.
// Implied by the GPU class it is listed as not run; named in the profile's tests it must run.
std::vector<Trace> traces_with_nccl_waived_as_too_small() {
    auto traces = healthy_traces(2, 2);
    for (Trace& trace : traces) {
        trace.inventory = gpu_node_inventory(2);
        TestResult nccl;
        nccl.key = "nccl";
        nccl.waive(job_too_small_waiver("2 GPUs in the job", "this run measures 1"));
        trace.tests.push_back(nccl);
    }
    return traces;
}

TEST(ProfileRule, AnImpliedGpuTestTheJobWasTooSmallForIsNotAFailure) {
    TempDir temp;
    const char* profile = "classes:\n  - nodes: node0000\n    gpus_per_node: 2\n";
    const Judgement judgement =
        judge_with_profile(temp, traces_with_nccl_waived_as_too_small(), profile, {"stream", "mpi_pingpong", "nccl"});
    ASSERT_EQ(judgement.nodes.size(), 1u);
    EXPECT_EQ(judgement.nodes[0].verdict, Verdict::pass) << ::testing::PrintToString(reasons_of(judgement.nodes[0]));
    EXPECT_EQ(judgement.exit_code(), 0);
}

TEST(ProfileRule, ANamedTestTheJobWasTooSmallForIsNotAPass) {
    TempDir temp;
    const char* profile = "classes:\n  - nodes: node0000\n    gpus_per_node: 2\n    tests: [nccl]\n";
    const Judgement judgement =
        judge_with_profile(temp, traces_with_nccl_waived_as_too_small(), profile, {"stream", "mpi_pingpong", "nccl"});
    ASSERT_EQ(judgement.nodes.size(), 1u);
    EXPECT_EQ(reasons_of(judgement.nodes[0]),
              std::vector<std::string>{"not run is not a pass: nccl waived on every rank of node0000 (needs at least 2 GPUs "
                                       "in the job (this run measures 1))"});
    EXPECT_EQ(judgement.nodes[0].findings[0].cause, Cause::configuration);
    EXPECT_EQ(judgement.exit_code(), 2);
}

TEST(ProfileRule, ANodeTheProfileDoesNotNameIsConfigurationToFix) {
    TempDir temp;
    auto traces = healthy_traces(2, 1);
    for (Trace& trace : traces) trace.inventory = gpu_node_inventory(2);
    const Judgement judgement =
        judge_with_profile(temp, traces, "classes:\n  - nodes: node0000\n    gpus_per_node: 2\n");
    EXPECT_EQ(judgement.nodes[0].verdict, Verdict::pass);
    ASSERT_EQ(judgement.nodes[1].findings.size(), 1u);
    EXPECT_EQ(judgement.nodes[1].findings[0].cause, Cause::configuration);
    EXPECT_EQ(judgement.exit_code(), 2);
}

}  // namespace
}  // namespace shakedown::analysis
