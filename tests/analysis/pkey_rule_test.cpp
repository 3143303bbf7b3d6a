// PKey agreement across nodes (rules/health/pkey_rule.hpp): run folders of several nodes written through
// the real TraceWriter, each node leader's port table carrying the PKeys the fake-sysfs RDMA
// source records (attribute "pkeys", or "not_available.pkeys"), judged through the loader and
// by the shakedown-analyze executable. One machine cannot run several nodes under mpirun: the
// single-node source and its not-available case run end to end in tests/telemetry/ib_health_e2e_test.cpp.
#include "analysis/load/run_loader.hpp"
#include "analysis/rules/health/leader_trace_rules.hpp"
#include "analysis/rules/health/pkey_rule.hpp"
#include "analysis/rules/settings/thresholds.hpp"
#include "analysis_fixtures.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <sys/wait.h>

#include <cstdlib>

namespace shakedown::analysis {
namespace {

using testing::healthy_traces;
using testing::read_text;
using testing::TempDir;
using testing::write_run;

constexpr double run_start = 1764480000.5;

AnalysisSettings default_settings() { return Thresholds::built_in().settings(); }

// A port table as RdmaPortTelemetry writes it, with its PKey attributes.
void give_port(Trace& leader, const std::map<std::string, std::string>& facts) {
    SampleTable table({{"t", "s"}, {"counters_t", "s"}, {"state", "1"}, {"phys_state", "1"}, {"rate_gbps", "Gb/s"}});
    for (int i = 0; i < 2; ++i) table.add_row({run_start + i, run_start + i, 4, 5, 400});
    leader.telemetry["mlx5_0_port1"] = table;
    auto attributes = facts;
    attributes["rdma_device"] = "mlx5_0";
    attributes["port"] = "1";
    attributes["link_layer"] = "InfiniBand";
    leader.telemetry_attributes["mlx5_0_port1"] = attributes;
}

// Four nodes of one rank each; `pkeys[i]` for node i ("" for a table that could not be read).
std::vector<Trace> traces_with(const std::vector<std::string>& pkeys) {
    auto traces = healthy_traces(static_cast<int>(pkeys.size()), 1);
    for (std::size_t i = 0; i < pkeys.size(); ++i)
        give_port(traces[i], pkeys[i].empty()
                                 ? std::map<std::string, std::string>{{"not_available.pkeys",
                                                                      "/sys/class/infiniband/mlx5_0/ports/1/pkeys/3: cannot be read"}}
                                 : std::map<std::string, std::string>{{"pkeys", pkeys[i]}});
    return traces;
}

int run_analyzer(const TempDir& temp, const std::filesystem::path& run, std::string& out) {
    const auto file = temp.path() / "stdout.txt";
    const std::string command = std::string("'") + SHAKEDOWN_ANALYZE_EXE + "' '" + run.string() + "' >'" + file.string() + "' 2>&1";
    const int status = std::system(command.c_str());
    out = read_text(file);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(PkeyRuleFakeSysfs, NodeDifferingFromTheMajorityIsNamedAsConfigurationNotDrained) {
    TempDir temp;
    const auto run = write_run(temp.path() / "run", traces_with({"0x8001,0xffff", "0x8001,0xffff", "0x7fff,0xffff", "0x8001,0xffff"}));
    const LoadedRun loaded = load_run(run, {});
    const auto findings = leader_trace_findings(Observations(loaded), default_settings()).pkeys;
    ASSERT_EQ(findings.size(), 1u);
    EXPECT_EQ(findings[0].node, "node0002");
    EXPECT_EQ(findings[0].level, Level::fail);
    EXPECT_EQ(findings[0].cause, Cause::configuration);
    EXPECT_FALSE(findings[0].drains());
    EXPECT_EQ(findings[0].reason,
              "mlx5_0 port 1: PKeys 0x7fff,0xffff differ from the 3 of 4 ports that hold 0x8001,0xffff; missing 0x8001; "
              "extra 0x7fff [rule pkey_mismatch]");
    // Read in two forked processes: the same finding.
    const auto forked = leader_trace_findings(Observations(loaded), default_settings(), nullptr, 2).pkeys;
    ASSERT_EQ(forked.size(), 1u);
    EXPECT_EQ(forked[0].node, "node0002");
    EXPECT_EQ(forked[0].reason, findings[0].reason);

    std::string out;
    EXPECT_EQ(run_analyzer(temp, run, out), 2) << out;  // a configuration FAIL: fix the setup, exit 2
    EXPECT_NE(out.find("PKeys 0x7fff,0xffff differ"), std::string::npos) << out;
    const auto summary = nlohmann::json::parse(read_text(run / "summary.json"));
    bool found = false;
    for (const auto& node : summary["nodes"])
        for (const auto& finding : node["findings"])
            if (finding["source"] == "pkeys") {
                found = true;
                EXPECT_EQ(node["node"], "node0002");
                EXPECT_EQ(finding["cause"], "configuration");
                EXPECT_EQ(finding["test"], "pkey_agreement");
            }
    EXPECT_TRUE(found) << summary.dump(2);
    EXPECT_EQ(read_text(run / "drain.txt").find("node0002"), std::string::npos) << "a PKey mismatch must not drain";
}

TEST(PkeyRuleFakeSysfs, AgreeingNodesAndAnUnreadableTableGiveNoFinding) {
    TempDir temp;
    // node0001's table could not be read: left out, never compared as an empty set.
    const auto run = write_run(temp.path() / "run", traces_with({"0x8001,0xffff", "", "0x8001,0xffff", "0x8001,0xffff"}));
    const LoadedRun loaded = load_run(run, {});
    EXPECT_TRUE(leader_trace_findings(Observations(loaded), default_settings()).pkeys.empty());
    std::string out;
    EXPECT_EQ(run_analyzer(temp, run, out), 0) << out;
    EXPECT_EQ(out.find("pkey"), std::string::npos) << out;
}

TEST(PkeyRuleFakeSysfs, NoMajorityNamesEveryPortAndOneNodeHasNothingToCompare) {
    const RankIdentity a{.rank = 0, .node = "a"}, b{.rank = 1, .node = "b"};
    const auto split = pkey_findings({{&a, "mlx5_0_port1", "InfiniBand", "0xffff"}, {&b, "mlx5_0_port1", "InfiniBand", "0x8001,0xffff"}});
    ASSERT_EQ(split.size(), 2u);
    EXPECT_NE(split[0].reason.find("agree on no set"), std::string::npos) << split[0].reason;
    // Two ports of one node that differ: one node cannot disagree with the others.
    EXPECT_TRUE(pkey_findings({{&a, "mlx5_0_port1", "InfiniBand", "0xffff"}, {&a, "mlx5_1_port1", "InfiniBand", "none"}}).empty());
    // RoCE and InfiniBand ports are compared each with their own kind.
    EXPECT_TRUE(pkey_findings({{&a, "mlx5_0_port1", "InfiniBand", "0x8001,0xffff"}, {&b, "mlx5_0_port1", "InfiniBand", "0x8001,0xffff"},
                               {&b, "mlx5_2_port1", "Ethernet", "0xffff"}})
                    .empty());
}

}  // namespace
}  // namespace shakedown::analysis
