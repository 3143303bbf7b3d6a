// The whole-run RDMA port error-counter rule: on tables as values, and on a run folder written
// through the real TraceWriter and judged by the shakedown-analyze executable. The port tables
// are made up (this machine has no RDMA device); they have the shape RdmaPortTelemetry writes.
#include "analysis/load/run_loader.hpp"
#include "analysis/rules/health/leader_trace_rules.hpp"
#include "analysis/rules/health/port_counter_rule.hpp"
#include "analysis/rules/settings/thresholds.hpp"
#include "analysis_fixtures.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <sys/wait.h>

#include <cmath>
#include <cstdlib>

namespace shakedown::analysis {
namespace {

using testing::healthy_traces;
using testing::read_text;
using testing::TempDir;
using testing::write_run;

constexpr double run_start = 1764480000.5;  // 2025-11-30 05:20:00.5 UTC, inside the fixtures' run

// A port table as the telemetry source writes it: one reading per second, the symbol_error
// column following `symbol_errors`, port_rcv_errors rising by `rcv_rise` over the run.
SampleTable fake_sysfs_port_table(const std::vector<double>& symbol_errors, double rcv_rise = 0.0,
                                  const std::vector<double>& states = {}) {
    SampleTable table({{"t", "s"},
                       {"counters_t", "s"},
                       {"state", "1"},
                       {"phys_state", "1"},
                       {"rate_gbps", "Gb/s"},
                       {"error_symbol_error", "1"},
                       {"error_port_rcv_errors", "1"},
                       {"port_xmit_data", "4B"}});
    for (std::size_t i = 0; i < symbol_errors.size(); ++i) {
        const double t = run_start + static_cast<double>(i);
        const double rcv = i + 1 == symbol_errors.size() ? 5.0 + rcv_rise : 5.0;
        const double state = states.empty() ? 4.0 : states[i];  // 4: ACTIVE
        table.add_row({t, t, state, 5, 200, symbol_errors[i], rcv, 1e6 * static_cast<double>(i)});
    }
    return table;
}

AnalysisSettings default_settings() { return Thresholds::built_in().settings(); }

RankIdentity leader(const std::string& node, int rank) { return {.rank = rank, .node = node}; }

TEST(PortCounterRuleFakeSysfs, GrowthFailsNamingPortCounterAndWindow) {
    const std::map<std::string, SampleTable> telemetry{{"mlx5_0_port1", fake_sysfs_port_table({3, 3, 9, 15}, 3)},
                                                       {"host", SampleTable({{"t", "s"}, {"loadavg_1m", "1"}})}};
    const auto findings = port_counter_findings(leader("node0000", 0), telemetry, default_settings());
    ASSERT_EQ(findings.size(), 1u);
    const Finding& finding = findings.front();
    EXPECT_EQ(finding.level, Level::fail);
    EXPECT_EQ(finding.node, "node0000");
    EXPECT_EQ(finding.test, "rdma_port_counters");
    EXPECT_EQ(finding.source, FindingSource::port_counters);
    EXPECT_EQ(finding.reason, "mlx5_0 port 1: symbol_error +12, port_rcv_errors +3 during the run (05:20:00-05:20:03)");
}

TEST(PortCounterRuleFakeSysfs, PortLeavingActiveFailsWithWhenAndWhatState) {
    const auto findings = port_counter_findings(
        leader("node0001", 2), {{"mlx5_0_port1", fake_sysfs_port_table({0, 0, 0, 0}, 0, {4, 4, 1, 4})}}, default_settings());
    ASSERT_EQ(findings.size(), 1u);
    EXPECT_EQ(findings[0].level, Level::fail);
    EXPECT_EQ(findings[0].reason,
              "mlx5_0 port 1: the port left ACTIVE during the run: DOWN at 05:20:02, ACTIVE at 05:20:03 (05:20:00-05:20:03)");
}

TEST(PortCounterRuleFakeSysfs, PortNeverActiveIsTheInventorysBusiness) {
    // An unconnected second port stays DOWN: no telemetry finding (ib_inventory judges ports).
    EXPECT_TRUE(port_counter_findings(leader("node0001", 2), {{"mlx5_0_port2", fake_sysfs_port_table({0, 0, 0}, 0, {1, 1, 1})}},
                                      default_settings())
                    .empty());
}

TEST(PortCounterRuleFakeSysfs, CounterAtItsCeilingWarnsThatErrorsCannotShow) {
    // symbol_error is 16 bits wide and stops at 65535: steady there, yet blind.
    const auto findings = port_counter_findings(
        leader("node0002", 4), {{"mlx5_0_port1", fake_sysfs_port_table({65535, 65535, 65535})}}, default_settings());
    ASSERT_EQ(findings.size(), 1u);
    EXPECT_EQ(findings[0].level, Level::warn);
    EXPECT_EQ(findings[0].reason,
              "mlx5_0 port 1: symbol_error at its ceiling 65535: errors beyond it cannot show (clear the port counters "
              "before an acceptance run) (05:20:00-05:20:02)");
    // One below the ceiling is an ordinary steady counter.
    EXPECT_TRUE(port_counter_findings(leader("node0002", 4), {{"mlx5_0_port1", fake_sysfs_port_table({65534, 65534})}},
                                      default_settings())
                    .empty());
}

TEST(PortCounterRuleFakeSysfs, SteadyCountersAndTrafficAreNoFinding) {
    // Non-zero but unchanged error counters (old errors from before the run) and rising traffic.
    const std::map<std::string, SampleTable> telemetry{{"mlx5_0_port1", fake_sysfs_port_table({40, 40, 40, 40})},
                                                       {"mlx5_1_port2", fake_sysfs_port_table({0, 0})}};
    EXPECT_TRUE(port_counter_findings(leader("node0000", 0), telemetry, default_settings()).empty());
}

TEST(PortCounterRuleFakeSysfs, CounterGoingBackwardsIsReportedNotNegative) {
    SampleTable table = fake_sysfs_port_table({50, 52, 0, 1});
    const auto findings = port_counter_findings(leader("node0003", 6), {{"mlx5_2_port1", table}}, default_settings());
    ASSERT_EQ(findings.size(), 2u);
    // The rises on both sides of the reset still count: 50->52 and 0->1.
    EXPECT_EQ(findings[0].level, Level::fail);
    EXPECT_EQ(findings[0].rank, 6);
    EXPECT_EQ(findings[0].reason, "mlx5_2 port 1: symbol_error +3 during the run (05:20:00-05:20:03)");
    EXPECT_EQ(findings[1].level, Level::warn);
    EXPECT_EQ(findings[1].reason,
              "mlx5_2 port 1: symbol_error went backwards from 52 to 0 at 05:20:02 (cleared, driver reload or wrap): "
              "errors lost across the drop are not counted (05:20:00-05:20:03)");
    EXPECT_EQ(findings[1].reason.find("-52"), std::string::npos);
}

TEST(PortCounterRuleFakeSysfs, UnreadableReadingsAreSkippedAndOneReadingIsNotJudged) {
    const auto findings = port_counter_findings(leader("n", 0), {{"mlx5_0_port1", fake_sysfs_port_table({2, NAN, 2})},
                                                         {"mlx5_0_port2", fake_sysfs_port_table({7})}},
                                                default_settings());
    EXPECT_TRUE(findings.empty());
}

TEST(PortCounterRuleFakeSysfs, AllowanceFromThresholdsFileAndSwitch) {
    const Thresholds user = Thresholds::parse(
        "metrics:\nport_counters:\n  allowed_increase: {symbol_error: 12}\n", "user.yaml");
    const Thresholds merged = Thresholds::built_in().overridden_by(user);
    const std::map<std::string, SampleTable> telemetry{{"mlx5_0_port1", fake_sysfs_port_table({3, 15}, 3)}};
    const auto findings = port_counter_findings(leader("n", 0), telemetry, merged.settings());
    ASSERT_EQ(findings.size(), 1u);  // symbol_error within its allowance, port_rcv_errors not
    EXPECT_EQ(findings[0].reason, "mlx5_0 port 1: port_rcv_errors +3 during the run (05:20:00-05:20:01)");

    const auto looser = Thresholds::built_in().overridden_by(
        Thresholds::parse("metrics:\nport_counters:\n  allowed_increase: {symbol_error: 10, port_rcv_errors: 1}\n", "u.yaml"));
    EXPECT_EQ(port_counter_findings(leader("n", 0), telemetry, looser.settings()).front().reason,
              "mlx5_0 port 1: symbol_error +12 (allowed 10), port_rcv_errors +3 (allowed 1) during the run (05:20:00-05:20:01)");

    EXPECT_THROW(Thresholds::parse("metrics:\nport_counters:\n  allowed_increase: {symbol_error: -1}\n", "u.yaml"), std::exception);
    EXPECT_THROW(Thresholds::parse("metrics:\nport_counters:\n  allowed_increase: 3\n", "u.yaml"), std::exception);
    const auto off = Thresholds::built_in().overridden_by(Thresholds::parse("metrics:\nport_counters: {enabled: false}\n", "u.yaml"));
    EXPECT_FALSE(off.settings().port_counter_rule_enabled());
}

struct CommandResult {
    int exit_code = -1;
    std::string out;
};

CommandResult run_analyzer(const TempDir& temp, const std::string& arguments) {
    const auto out = temp.path() / "stdout.txt";
    const std::string command = std::string("'") + SHAKEDOWN_ANALYZE_EXE + "' " + arguments + " >'" + out.string() + "' 2>&1";
    const int status = std::system(command.c_str());
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, read_text(out)};
}

TEST(PortCounterRuleFakeSysfs, RunFolderWithSymbolErrorGrowthFailsTheNodeInEveryOutput) {
    TempDir temp;
    auto traces = healthy_traces(4, 2);                                       // node0000: ranks 0, 1
    traces[0].telemetry["mlx5_0_port1"] = fake_sysfs_port_table({3, 3, 9, 15});  // the leader's trace
    traces[2].telemetry["mlx5_0_port1"] = fake_sysfs_port_table({8, 8, 8, 8});   // node0001: healthy
    const auto run = write_run(temp.path() / "run", traces);

    // Through the loader: the finding comes from the trace file on disk.
    const LoadedRun loaded = load_run(run, {});
    const auto findings = leader_trace_findings(Observations(loaded), default_settings()).port_counters;
    ASSERT_EQ(findings.size(), 1u);
    EXPECT_EQ(findings[0].node, "node0000");
    // Read in two forked processes: the same finding.
    const auto forked = leader_trace_findings(Observations(loaded), default_settings(), nullptr, 2).port_counters;
    ASSERT_EQ(forked.size(), 1u);
    EXPECT_EQ(forked[0].node, "node0000");
    EXPECT_EQ(forked[0].reason, findings[0].reason);

    const CommandResult text = run_analyzer(temp, run.string());
    EXPECT_EQ(text.exit_code, 1) << text.out;
    const std::string reason = "mlx5_0 port 1: symbol_error +12 during the run (05:20:00-05:20:03)";
    EXPECT_NE(text.out.find(reason), std::string::npos) << text.out;

    const auto summary = nlohmann::json::parse(read_text(run / "summary.json"));
    bool found = false;
    for (const auto& node : summary["nodes"]) {
        if (node["node"] == "node0001") EXPECT_EQ(node["verdict"], "pass");
        if (node["node"] != "node0000") continue;
        EXPECT_EQ(node["verdict"], "fail");
        for (const auto& finding : node["findings"])
            if (finding["reason"] == reason) {
                found = true;
                EXPECT_EQ(finding["source"], "port_counters");
                EXPECT_EQ(finding["test"], "rdma_port_counters");
            }
    }
    EXPECT_TRUE(found) << summary.dump(2);
    EXPECT_NE(read_text(run / "junit.xml").find("name=\"rdma_port_counters\""), std::string::npos);
    EXPECT_NE(read_text(run / "junit.xml").find(reason), std::string::npos);
    const std::string drain = read_text(run / "drain.txt");
    EXPECT_NE(drain.find("node0000"), std::string::npos) << drain;
    EXPECT_NE(drain.find("symbol_error +12"), std::string::npos) << drain;
    EXPECT_EQ(drain.find("node0001"), std::string::npos) << drain;

    const CommandResult markdown = run_analyzer(temp, run.string() + " --format markdown --no-html --summary " +
                                                          (temp.path() / "s2.json").string() + " --junit " +
                                                          (temp.path() / "j2.xml").string() + " --drain " +
                                                          (temp.path() / "d2.txt").string());
    EXPECT_EQ(markdown.exit_code, 1);
    // Markdown escapes the underscores.
    EXPECT_NE(markdown.out.find("rdma\\_port\\_counters: mlx5\\_0 port 1: symbol\\_error +12 during the run"),
              std::string::npos)
        << markdown.out;
}

TEST(PortCounterRuleFakeSysfs, RunFolderWithoutGrowthPasses) {
    TempDir temp;
    auto traces = healthy_traces(2, 1);
    traces[0].telemetry["mlx5_0_port1"] = fake_sysfs_port_table({3, 3, 3});
    const auto run = write_run(temp.path() / "run", traces);
    const CommandResult result = run_analyzer(temp, run.string());
    EXPECT_EQ(result.exit_code, 0) << result.out;
    EXPECT_EQ(result.out.find("rdma_port_counters"), std::string::npos) << result.out;
}

}  // namespace
}  // namespace shakedown::analysis
