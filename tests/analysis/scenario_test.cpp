// One test per verdict rule on hand-made runs (bench/'s synthetic generator writes real rank
// files through TraceWriter): a healthy fleet, one slow node, one slow link, a slow group (with
// and without a topology.conf), a throttled GPU explained by its telemetry, a baseline
// regression, a slow collective rank; and the outputs (summary.json, junit.xml, report.html,
// markdown, drain.txt) of such runs.
#include "analysis/analyzer.hpp"
#include "analysis/report/markup.hpp"
#include "analysis_outcome.hpp"
#include "bench/synthetic_run.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>

namespace shakedown::analysis {
namespace {

using testing::read_text;
using testing::TempDir;

using Analysis = testing::AnalysisOutcome;
using testing::analyze_in_process;
using testing::findings_of;
using testing::synthetic_run;
using testing::verdict_of;

Analysis analyze_folder(const std::filesystem::path& run) { return analyze_in_process({.run_dir = run}); }

int scontrol_lines(const std::filesystem::path& drain) {
    std::istringstream lines(read_text(drain));
    int count = 0;
    for (std::string line; std::getline(lines, line);) count += line.rfind("scontrol ", 0) == 0 ? 1 : 0;
    return count;
}

const std::vector<std::string> every_test = bench::all_synthetic_test_keys();

TEST(Scenario, HealthyFleetHasNoFindingAndDrainsNothing) {
    TempDir temp;
    const auto run = synthetic_run(temp, "healthy", {.ranks = 16, .ranks_per_node = 4, .tests = every_test});
    const Analysis analysis = analyze_folder(run);
    EXPECT_EQ(analysis.exit_code, 0) << analysis.out << analysis.err;
    EXPECT_TRUE(findings_of(analysis).empty()) << analysis.summary["nodes"].dump(2);
    EXPECT_EQ(analysis.summary["verdict"], "pass");
    EXPECT_EQ(analysis.summary["localization"]["analyzed"], true);
    EXPECT_TRUE(analysis.summary["localization"]["slow_nodes"].empty());
    EXPECT_TRUE(analysis.summary["localization"]["slow_links"].empty());
    EXPECT_TRUE(analysis.summary["localization"]["slow_groups"].empty());
    EXPECT_FALSE(analysis.summary["fleet"].empty());
    EXPECT_EQ(scontrol_lines(run / "drain.txt"), 0);
    EXPECT_NE(read_text(run / "junit.xml").find("failures=\"0\""), std::string::npos);
    EXPECT_NE(analysis.out.find("no slow node, link or group"), std::string::npos) << analysis.out;
    // value, nominal and usable/nominal per node
    const auto& metrics = analysis.summary["nodes"][0]["metrics"];
    const auto dgemm = std::find_if(metrics.begin(), metrics.end(), [](const auto& m) { return m["name"] == "dgemm_fp64.tflops"; });
    ASSERT_NE(dgemm, metrics.end());
    EXPECT_DOUBLE_EQ((*dgemm)["nominal"].get<double>(), 67.0);
    EXPECT_NEAR((*dgemm)["fraction"].get<double>(), 0.96, 0.03);
}

// Configuration drift on 8 nodes: one node runs another GPU driver, another node's HCAs another
// firmware. Each is named with both versions, cause configuration: the run exits 2 with what to
// fix and nothing drains (the healthy fleet above, all alike, has no finding).
TEST(Scenario, ANodeWithAnotherDriverAndOneWithAnotherHcaFirmwareAreNamedNotDrained) {
    TempDir temp;
    const auto run = synthetic_run(temp, "drift",
                                   {.ranks = 8, .ranks_per_node = 1, .tests = {"stream"}, .other_driver_nodes = {2},
                                    .other_hca_firmware_nodes = {5}});
    const Analysis analysis = analyze_folder(run);
    EXPECT_EQ(analysis.exit_code, 2) << analysis.out << analysis.err;
    const auto driver = findings_of(analysis, "node0002");
    ASSERT_EQ(driver.size(), 1u) << analysis.out;
    EXPECT_EQ(driver[0]["test"], "configuration_agreement");
    EXPECT_EQ(driver[0]["cause"], "configuration");
    EXPECT_EQ(driver[0]["code"], "configuration_drift");
    EXPECT_EQ(driver[0]["reason"],
              "GPU driver 570.86.15 differs from the 7 of 8 nodes that have 580.95.05 [rule configuration_drift]");
    const auto firmware = findings_of(analysis, "node0005");
    ASSERT_EQ(firmware.size(), 1u) << analysis.out;
    EXPECT_EQ(firmware[0]["reason"],
              "HCA firmware 28.39.1002 differs from the 7 of 8 nodes that have 28.43.1014 [rule configuration_drift]");
    for (const char* node : {"node0000", "node0001", "node0003", "node0004", "node0006", "node0007"})
        EXPECT_TRUE(findings_of(analysis, node).empty()) << node;
    EXPECT_EQ(scontrol_lines(run / "drain.txt"), 0) << read_text(run / "drain.txt");
}

TEST(Scenario, OneSlowNodeAmongThreeFailsOnlyThatNode) {
    // The Slurm helper's case: 3 nodes, one slow; 2 of 3 node pairs touch it, so the job-wide
    // median link is the slow figure. Only node0002 may fail, and only it is drained.
    TempDir temp;
    const bench::SyntheticRunSpec spec{.ranks = 3, .ranks_per_node = 1, .gpus = false, .tests = {"allpairs"}, .slow_node = 2};
    const auto run = synthetic_run(temp, "slow-node", spec);
    // Measured once, the slow node drains nothing yet; the same figures measured again do.
    const Analysis first = analyze_folder(run);
    EXPECT_EQ(first.exit_code, 1) << first.out;
    EXPECT_EQ(scontrol_lines(run / "drain.txt"), 0) << read_text(run / "drain.txt");
    EXPECT_NE(first.out.find("1 FAIL(s) rest on one measurement"), std::string::npos) << first.out;
    const Analysis analysis =
        analyze_in_process({.run_dir = run, .confirmation_dir = synthetic_run(temp, "slow-node-again", spec)});
    EXPECT_EQ(analysis.exit_code, 1) << analysis.out;
    EXPECT_EQ(analysis.summary["counts"]["nodes"]["pass"], 2) << analysis.out;
    EXPECT_EQ(verdict_of(analysis, "node0002"), "fail");
    const auto findings = findings_of(analysis, "node0002");
    ASSERT_EQ(findings.size(), 1u) << analysis.out;
    EXPECT_EQ(findings[0]["source"], "links");
    const std::string reason = findings[0]["reason"];
    EXPECT_NE(reason.find("slow node: all 2 of node0002's inter-node links are slow, the common end of 2 slow links"), std::string::npos) << reason;
    EXPECT_NE(reason.find("GB/s"), std::string::npos);
    EXPECT_EQ(analysis.summary["localization"]["slow_nodes"][0]["node"], "node0002");
    EXPECT_EQ(scontrol_lines(run / "drain.txt"), 1);
    EXPECT_NE(read_text(run / "drain.txt").find("NodeName=node0002 State=DRAIN Reason=\"shakedown: allpairs: slow node"),
              std::string::npos) << read_text(run / "drain.txt");
}

TEST(Scenario, OneSlowLinkIsTheLinkAndDrainsNeitherEnd) {
    // A slow link between two otherwise fine nodes is the cable or a port: the run fails (exit 1)
    // and both ends show the link FAIL, but drain.txt drains neither node.
    TempDir temp;
    const auto run = synthetic_run(
        temp, "slow-link",
        {.ranks = 5, .ranks_per_node = 1, .gpus = false, .tests = {"allpairs"}, .slow_links = {{1, 3}}});
    const Analysis analysis = analyze_folder(run);
    EXPECT_EQ(analysis.exit_code, 1) << analysis.out;
    EXPECT_TRUE(analysis.summary["localization"]["slow_nodes"].empty()) << analysis.summary["localization"].dump(2);
    ASSERT_EQ(analysis.summary["localization"]["slow_links"].size(), 1u);
    const auto& link = analysis.summary["localization"]["slow_links"][0];
    EXPECT_EQ(link["a"], "node0001");
    EXPECT_EQ(link["b"], "node0003");
    EXPECT_EQ(link["level"], "fail");
    EXPECT_EQ(link["drains"], false);
    EXPECT_NEAR(link["bandwidth_gbs"].get<double>() / link["healthy_gbs"].get<double>(), 0.2, 0.02);
    for (const char* node : {"node0001", "node0003"}) {
        const auto findings = findings_of(analysis, node);
        ASSERT_EQ(findings.size(), 1u) << node;
        const std::string reason = findings[0]["reason"];
        EXPECT_NE(reason.find("slow link node0001<->node0003"), std::string::npos) << reason;
        EXPECT_NE(reason.find("neither is drained"), std::string::npos) << reason;
        EXPECT_EQ(findings[0]["metric"], "allpairs.inter_node_bandwidth_min_gbs");
    }
    for (const char* node : {"node0000", "node0002", "node0004"}) EXPECT_EQ(verdict_of(analysis, node), "pass") << node;
    EXPECT_EQ(scontrol_lines(run / "drain.txt"), 0) << read_text(run / "drain.txt");
}

// A link is no GPU: its finding read "GPU 0 FAIL" on both end nodes. It now has a verdict row of
// its own (terminal, summary.json, report.html, markdown), and the ends' GPU rows stay PASS. A
// healthy fleet has no link row.
TEST(Scenario, ASlowLinkHasItsOwnVerdictRowAndNoGpuRow) {
    TempDir temp;
    const auto run = synthetic_run(
        temp, "slow-link-gpus", {.ranks = 16, .ranks_per_node = 4, .tests = {"stream", "allpairs"}, .slow_links = {{1, 2}}});
    const Analysis analysis = analyze_folder(run);
    EXPECT_EQ(analysis.exit_code, 1) << analysis.out;
    ASSERT_EQ(analysis.summary["link_verdicts"].size(), 1u) << analysis.summary["link_verdicts"].dump(2);
    const auto& row = analysis.summary["link_verdicts"][0];
    EXPECT_EQ(row["link"], "node0001<->node0002");
    EXPECT_EQ(row["matrix"], "allpairs");
    EXPECT_EQ(row["verdict"], "fail");
    EXPECT_EQ(row["confirmation"], "awaiting");
    EXPECT_NEAR(row["ratio"].get<double>(), 0.2, 0.02);
    for (const auto& node : analysis.summary["nodes"]) {
        for (const auto& device : node["devices"]) EXPECT_EQ(device["verdict"], "pass") << node["node"] << device.dump();
        for (const auto& finding : node["findings"]) EXPECT_TRUE(finding["gpu"].is_null()) << finding.dump();
    }
    EXPECT_NE(analysis.out.find("LINK  "), std::string::npos) << analysis.out;
    EXPECT_EQ(analysis.out.find("GPU 0 allpairs"), std::string::npos) << analysis.out;
    const std::string html = read_text(run / "report.html");
    EXPECT_NE(html.find("<h3>Verdict per link</h3>"), std::string::npos);
    EXPECT_NE(html.find("<tr><td>node0001&lt;-&gt;node0002</td><td>allpairs</td>"), std::string::npos);

    TempDir healthy_temp;
    const Analysis healthy = analyze_folder(
        synthetic_run(healthy_temp, "healthy-links", {.ranks = 16, .ranks_per_node = 4, .tests = {"stream", "allpairs"}}));
    EXPECT_EQ(healthy.exit_code, 0) << healthy.out;
    EXPECT_TRUE(healthy.summary["link_verdicts"].empty());
    EXPECT_EQ(healthy.out.find("LINK  "), std::string::npos) << healthy.out;
}

// Host ranks' energy from their node's CPU packages (the synthetic RAPL counter: about 400 W per
// node), shared by the node's 4 ranks: about 100 W each in summary.json and the Energy section.
TEST(Scenario, HostRanksGetEnergyFromTheirNodesPackages) {
    TempDir temp;
    const Analysis analysis = analyze_folder(
        synthetic_run(temp, "host-energy", {.ranks = 8, .ranks_per_node = 4, .gpus = false, .tests = {"dgemm_fp64"}}));
    EXPECT_EQ(analysis.exit_code, 0) << analysis.out;
    ASSERT_EQ(analysis.summary["energy"].size(), 8u) << analysis.summary["energy"].dump(2);
    for (const auto& row : analysis.summary["energy"]) {
        EXPECT_TRUE(row["gpu"].is_null());
        EXPECT_NEAR(row["power_w"].get<double>(), 100.0, 5.0) << row.dump();
        EXPECT_NE(row["power_source"].get<std::string>().find("shared by 4 rank(s)"), std::string::npos) << row.dump();
    }
    EXPECT_NE(analysis.out.find("dgemm_fp64 on 8 host rank(s), median: "), std::string::npos) << analysis.out;
}

TEST(Scenario, SlowGroupIsNamedAfterItsSwitchFromTopologyConf) {
    TempDir temp;
    const auto run = synthetic_run(
        temp, "slow-group",
        {.ranks = 6, .ranks_per_node = 1, .gpus = false, .tests = {"allpairs"}, .slow_group = {3, 4, 5}});
    const auto topology = temp.path() / "topology.conf";
    std::ofstream(topology) << "# two leaves under one spine\n"
                               "SwitchName=leaf0 Nodes=node[0000-0002] LinkSpeed=100\n"
                               "SwitchName=leaf1 Nodes=node[0003-0005]\n"
                               "SwitchName=spine Switches=leaf[0-1]\n";
    const Analysis named = analyze_in_process({.run_dir = run, .topology_file = topology});
    EXPECT_EQ(named.exit_code, 1) << named.out << named.err;
    ASSERT_EQ(named.summary["localization"]["slow_groups"].size(), 1u) << named.summary["localization"].dump(2);
    const auto& group = named.summary["localization"]["slow_groups"][0];
    EXPECT_EQ(group["switch"], "leaf1");
    EXPECT_EQ(group["nodes"], nlohmann::json({"node0003", "node0004", "node0005"}));
    EXPECT_EQ(group["cross_links"], 9);
    EXPECT_TRUE(named.summary["localization"]["slow_nodes"].empty());
    EXPECT_TRUE(named.summary["localization"]["slow_links"].empty());
    for (const char* node : {"node0003", "node0004", "node0005"}) {
        EXPECT_EQ(verdict_of(named, node), "fail");
        EXPECT_NE(findings_of(named, node)[0]["reason"].get<std::string>().find("switch leaf1"), std::string::npos);
    }
    for (const char* node : {"node0000", "node0001", "node0002"}) EXPECT_EQ(verdict_of(named, node), "pass");

    const Analysis unnamed = analyze_folder(run);
    EXPECT_NE(findings_of(unnamed, "node0004")[0]["reason"].get<std::string>().find("group of nodes node0003, node0004, node0005"),
              std::string::npos) << unnamed.out;
}

TEST(Scenario, ThrottledGpuIsExplainedByItsPowerCapTelemetry) {
    TempDir temp;
    const auto run = synthetic_run(temp, "throttled",
                                   {.ranks = 8, .ranks_per_node = 4, .tests = {"stream", "dgemm_fp64"},
                                    .throttled_gpu = bench::SyntheticRunSpec::ThrottledGpu{1, 2, 0.83}});
    const Analysis analysis = analyze_folder(run);
    EXPECT_EQ(analysis.exit_code, 1) << analysis.out;
    EXPECT_EQ(verdict_of(analysis, "node0000"), "pass");
    const auto findings = findings_of(analysis, "node0001");
    ASSERT_FALSE(findings.empty());
    for (const auto& finding : findings) {
        EXPECT_EQ(finding["rank"], 6) << finding.dump();
        EXPECT_EQ(finding["gpu"], 2);
    }
    const auto& dgemm = findings[0];
    EXPECT_EQ(dgemm["metric"], "dgemm_fp64.tflops");
    EXPECT_NEAR(dgemm["fraction"].get<double>(), 0.62, 0.04);
    const std::string explanation = dgemm["explanation"];
    EXPECT_EQ(explanation.rfind("GPU2 power-capped 8", 0), 0u) << explanation;  // 83 % of the window (rows of 2 Hz)
    EXPECT_NE(explanation.find("% of the dgemm_fp64 window, SM clock median 14"), std::string::npos) << explanation;
    EXPECT_NE(explanation.find("of 1980 MHz"), std::string::npos) << explanation;
    EXPECT_TRUE(dgemm["telemetry_coincided"].get<bool>());
    EXPECT_NE(analysis.out.find("telemetry: GPU2 power-capped"), std::string::npos) << analysis.out;
}

// One bad GPU among a node's four: the node's row, bars and figures show that GPU, not the median
// of the node's ranks (which would read a healthy 0.95).
TEST(Scenario, ABadGpuIsShownAsItselfNotHiddenInItsNodesMedian) {
    TempDir temp;
    const auto run = synthetic_run(temp, "bad-gpu",
                                   {.ranks = 32, .ranks_per_node = 4, .tests = {"stream", "dgemm_fp64"},
                                    .throttled_gpu = bench::SyntheticRunSpec::ThrottledGpu{6, 2, 0.83}});
    const Analysis analysis = analyze_folder(run);
    EXPECT_EQ(verdict_of(analysis, "node0006"), "fail");
    nlohmann::json node;
    for (const auto& entry : analysis.summary["nodes"])
        if (entry["node"] == "node0006") node = entry;
    ASSERT_EQ(node["devices"].size(), 4u);
    for (const auto& device : node["devices"]) EXPECT_EQ(device["verdict"], device["gpu"] == 2 ? "fail" : "pass") << device.dump();
    for (const auto& metric : node["metrics"])
        if (metric["name"] == "dgemm_fp64.tflops") {
            EXPECT_NEAR(metric["fraction"].get<double>(), 0.63, 0.04);  // the bad GPU's, while the median is 0.95
            EXPECT_GT(metric["median"].get<double>() / 67.0, 0.9);
        }
    // The terminal shows the node's GPUs under it; a PASS node shows none.
    EXPECT_NE(analysis.out.find("  GPU 2   26     FAIL"), std::string::npos) << analysis.out;
    EXPECT_EQ(analysis.out.find("  GPU 0   0 "), std::string::npos) << analysis.out;
    const std::string html = read_text(run / "report.html");
    EXPECT_NE(html.find("node0006: worst rank 42"), std::string::npos);
}

TEST(Scenario, BaselineRegressionIsReportedForTheRegressedNodeOnly) {
    TempDir temp;
    const auto before = synthetic_run(temp, "before", {.ranks = 8, .ranks_per_node = 2, .tests = {"stream", "dgemm_fp64"},
                                                       .run_id = "baseline-run"});
    const auto after = synthetic_run(temp, "after", {.ranks = 8, .ranks_per_node = 2, .tests = {"stream", "dgemm_fp64"},
                                                     .seed = 2, .run_id = "later-run", .regressed_node = 2,
                                                     .regression_factor = 0.85});
    const Analysis analysis = analyze_in_process({.run_dir = after, .baseline_dir = before});
    EXPECT_EQ(analysis.summary["baseline"]["run_id"], "baseline-run") << analysis.out << analysis.err;
    EXPECT_GT(analysis.summary["baseline"]["regressions"].get<int>(), 0);
    int regressions = 0;
    for (const auto& finding : findings_of(analysis)) {
        if (finding["source"] != "baseline") continue;
        ++regressions;
        EXPECT_EQ(finding["node"], "node0002") << finding.dump();
        EXPECT_NEAR(finding["value"].get<double>() / finding["reference"].get<double>(), 0.85, 0.05);
        EXPECT_NE(finding["reason"].get<std::string>().find("than the baseline's"), std::string::npos);
    }
    EXPECT_EQ(regressions, analysis.summary["baseline"]["regressions"].get<int>());
    EXPECT_NE(analysis.out.find("Baseline (1):"), std::string::npos) << analysis.out;

    // The same run without a baseline says nothing about one.
    const Analysis alone = analyze_folder(after);
    EXPECT_TRUE(alone.summary["baseline"].is_null());

    // A baseline that is not a run folder is bad input, named as such.
    const Analysis bad = analyze_in_process({.run_dir = after, .baseline_dir = temp.path() / "nowhere"});
    EXPECT_EQ(bad.exit_code, 2);
    EXPECT_EQ(bad.err.rfind("shakedown-analyze: --baseline: ", 0), 0u) << bad.err;
}

TEST(Scenario, SlowNodeOnGpusShowsItsSlowCollectiveRanksAndPrices) {
    TempDir temp;
    const auto run = synthetic_run(temp, "gpu-slow-node",
                                   {.ranks = 16, .ranks_per_node = 4, .tests = {"dgemm_fp64", "gemm_ladder", "nccl", "mpi_coll"},
                                    .slow_node = 1});
    const Analysis analysis = analyze_in_process({.run_dir = run, .price_per_node_hour = 40.0});
    EXPECT_EQ(analysis.exit_code, 1);
    EXPECT_EQ(analysis.summary["counts"]["nodes"]["fail"], 1) << analysis.out;
    bool slow_rank_named = false;
    for (const auto& finding : findings_of(analysis, "node0001"))
        if (finding["source"] == "collective") {
            slow_rank_named = true;
            EXPECT_NE(finding["reason"].get<std::string>().find("(node0001, GPU "), std::string::npos);
        }
    EXPECT_TRUE(slow_rank_named) << analysis.out;
    const auto& price = analysis.summary["price"];
    ASSERT_FALSE(price.is_null());
    EXPECT_DOUBLE_EQ(price["node_hour_price"].get<double>(), 40.0);
    const auto& fp64 = price["fleet"][0];
    EXPECT_EQ(fp64["metric"], "dgemm_fp64.tflops");
    // 4 nodes x 4 GPUs x 67 nominal; per nominal TFLOP/s-hour = 160 / 1072.
    EXPECT_NEAR(fp64["per_nominal_hour"].get<double>(), 160.0 / 1072.0, 1e-9);
    EXPECT_GT(fp64["per_usable_hour"].get<double>(), fp64["per_nominal_hour"].get<double>());
    EXPECT_EQ(price["fleet"][1]["metric"], "gemm_ladder.bf16_tflops");
    EXPECT_FALSE(price["fleet"][2]["usable"].is_null());  // nccl.all_reduce_busbw_gbs
    EXPECT_NE(analysis.out.find("per usable FP64 TFLOP/s per hour"), std::string::npos) << analysis.out;
    // The FP64 capability section: every GPU a row, each node's GPUs summed and priced.
    const auto& fp64_nodes = analysis.summary["fp64_capability"]["nodes"];
    ASSERT_EQ(fp64_nodes.size(), 4u) << analysis.summary["fp64_capability"].dump(2);
    for (const auto& node : fp64_nodes) {
        ASSERT_EQ(node["devices"].size(), 4u);
        EXPECT_EQ(node["devices"][3]["device"], "gpu");
        EXPECT_EQ(node["devices"][3]["gpu"], 3);
        EXPECT_DOUBLE_EQ(node["gpu_dgemm_tflops"]["nominal"].get<double>(), 4 * 67.0);
        EXPECT_NEAR(node["price_per_dgemm_tflops_hour"].get<double>(), 40.0 / node["gpu_dgemm_tflops"]["value"].get<double>(),
                    1e-9);
    }
    // The standard FP64 task over the 16 GPUs: its hours at their summed DGEMM rate, priced per node-hour.
    const auto& task = analysis.summary["fp64_capability"]["task"];
    ASSERT_TRUE(task.is_object()) << analysis.summary["fp64_capability"].dump(2);
    EXPECT_EQ(task["gpus"], 16);
    EXPECT_EQ(task["nodes"], 4);
    EXPECT_NEAR(task["hours"].get<double>(), 1e18 / (task["tflops"].get<double>() * 1e12) / 3600.0, 1e-9);
    EXPECT_NEAR(task["price"].get<double>(), task["hours"].get<double>() * 40.0 * 4, 1e-6);
    EXPECT_NE(analysis.out.find("FP64 capability (5):"), std::string::npos) << analysis.out;
    EXPECT_NE(analysis.out.find("an FP64 task of 1e+18 FLOP of DGEMM on these 16 GPU(s) (4 node(s)"), std::string::npos)
        << analysis.out;
}

TEST(Scenario, MarkdownJunitAndHtmlOutputsCarryTheFindings) {
    TempDir temp;
    const bench::SyntheticRunSpec spec{.ranks = 12, .ranks_per_node = 4, .tests = every_test, .slow_node = 2,
                                       .throttled_gpu = bench::SyntheticRunSpec::ThrottledGpu{0, 1, 0.83}};
    const auto run = synthetic_run(temp, "outputs", spec);
    const Analysis markdown = analyze_in_process({.run_dir = run, .confirmation_dir = synthetic_run(temp, "outputs-again", spec),
                                            .format = ReportFormat::markdown});
    EXPECT_NE(markdown.out.find("confirmation run "), std::string::npos) << markdown.out;
    EXPECT_EQ(markdown.out.rfind("## shakedown run synthetic: FAIL", 0), 0u) << markdown.out;
    EXPECT_NE(markdown.out.find("| node0002 | 8-11 | **FAIL** |"), std::string::npos) << markdown.out;
    EXPECT_NE(markdown.out.find("slow node: all 2 of node0002"), std::string::npos) << markdown.out;
    EXPECT_NE(markdown.out.find("  - telemetry: GPU1 power-capped"), std::string::npos) << markdown.out;
    EXPECT_NE(markdown.out.find("### FP64 capability\n\n| node | device | DGEMM TFLOP/s |"), std::string::npos) << markdown.out;
    EXPECT_NE(markdown.out.find("| node0002 | GPU 3 | "), std::string::npos) << markdown.out;

    const std::string junit = read_text(run / "junit.xml");
    EXPECT_NE(junit.find("<testsuite name=\"node0002\" tests=\"7\" failures="), std::string::npos) << junit.substr(0, 2000);
    EXPECT_NE(junit.find("<testcase classname=\"shakedown.node0002\" name=\"allpairs\""), std::string::npos);
    EXPECT_NE(junit.find("<failure message=\"slow node: all 2 of node0002"), std::string::npos);

    const std::string html = read_text(run / "report.html");
    EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
    EXPECT_NE(html.find("<svg"), std::string::npos);
    EXPECT_EQ(html.find("http://", html.find("<body")), html.find("http://www.w3.org/2000/svg", html.find("<body")))
        << "the report must reference nothing but the SVG namespace";
    EXPECT_EQ(html.find("<script"), std::string::npos);
    EXPECT_NE(html.find("GPU1 power-capped"), std::string::npos);
    EXPECT_NE(html.find("<h2>FP64 capability</h2>\n<table><tr><th>node</th><th>device</th>"), std::string::npos);
    EXPECT_EQ(scontrol_lines(run / "drain.txt"), 2);  // node0002 (slow) and node0000 (throttled GPU1)
}

}  // namespace
}  // namespace shakedown::analysis
