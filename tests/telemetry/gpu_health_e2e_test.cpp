// End to end with the fake libnvidia-ml (this machine has no GPU): the real driver under the real
// mpirun loads tests/telemetry/fake_nvml.cpp as libnvidia-ml.so.1 (LD_LIBRARY_PATH), the fake
// shows the fault its environment names, and shakedown-analyze must give the stated verdict with
// the rule, the counter and its readings in the finding and the drain line. A healthy fake gives
// no finding; an old driver's NVML (no health symbols) or an unsupported function is recorded as
// not available with the reason, never as a zero, and gives no finding either.
#include "e2e_support.hpp"
#include "trace/trace_reader.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <limits>
#include <thread>
#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>

namespace shakedown::testing {
namespace {

namespace fs = std::filesystem;

const std::string stream_params = R"(
params:
  stream: {array_mib: 8, repetitions: 20}
)";

struct Outcome {
    ProcessResult run;
    ProcessResult analysis;
    fs::path folder;
    nlohmann::json summary;
    std::string drain;
};

// One run of the stream test with the fake NVML (`library`: which build of it) and the fake's
// environment `fake_env` ("NAME=value" words), then the analyzer.
Outcome run_with_fake(const ScratchFolder& scratch, const std::vector<std::string>& fake_env,
                      const char* library = SHAKEDOWN_FAKE_NVML_PATH, const std::string& more_config = "",
                      const std::vector<std::string>& run_args = {}) {
    const fs::path lib = scratch.path() / "nvml-lib";
    fs::create_directories(lib);
    fs::create_symlink(library, lib / "libnvidia-ml.so.1");
    const auto config = scratch.write("config.yaml", stream_params + more_config);
    const auto thresholds = scratch.write("thresholds.yaml", speed_rules_off);
    std::vector<std::string> command{"env", "LD_LIBRARY_PATH=" + lib.string()};
    command.insert(command.end(), fake_env.begin(), fake_env.end());
    std::vector<std::string> driver{SHAKEDOWN_DRIVER, "run", "--tests", "stream", "--config", config.string(), "--out",
                                    scratch.path().string(), "--name", "run"};
    driver.insert(driver.end(), run_args.begin(), run_args.end());
    const auto launch = mpirun(2, driver);
    command.insert(command.end(), launch.begin(), launch.end());
    Outcome outcome;
    outcome.run = run_process(command);
    outcome.folder = scratch.path() / "run";
    outcome.analysis = run_process({SHAKEDOWN_ANALYZER, outcome.folder.string(), "--thresholds", thresholds.string()});
    if (fs::exists(outcome.folder / "summary.json")) outcome.summary = read_json(outcome.folder / "summary.json");
    std::ifstream drain(outcome.folder / "drain.txt");
    std::stringstream text;
    text << drain.rdbuf();
    outcome.drain = text.str();
    return outcome;
}

std::string read_text(const fs::path& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

// The node's findings from the health rule, as summary.json lists them.
std::vector<nlohmann::json> health_findings(const Outcome& outcome) {
    std::vector<nlohmann::json> found;
    if (!outcome.summary.contains("nodes")) return found;
    for (const auto& finding : outcome.summary["nodes"][0]["findings"])
        if (finding["source"] == "hidden_faults") found.push_back(finding);
    return found;
}

std::string drain_lines(const std::string& drain) {
    std::string lines;
    std::istringstream in(drain);
    for (std::string line; std::getline(in, line);)
        if (line.starts_with("scontrol")) lines += line + "\n";
    return lines;
}

TEST(EndToEndFakeNvml, HealthyFakeGpusGiveNoFinding) {
    const ScratchFolder scratch("gpu-health-healthy");
    const auto outcome = run_with_fake(scratch, {});
    ASSERT_EQ(outcome.run.exit_code, 0) << outcome.run.output;
    const Trace leader = read_trace(outcome.folder / trace_relative_path(0));
    ASSERT_TRUE(leader.telemetry.contains("health_gpu0")) << "no health table in the leader's trace";
    const SampleTable& table = leader.telemetry.at("health_gpu0");
    EXPECT_EQ(table.column("nvlink_links_up").back(), 18.0);
    EXPECT_EQ(table.column("remap_pending").back(), 0.0);
    EXPECT_EQ(table.column("fabric_state").back(), 3.0);
    EXPECT_EQ(leader.telemetry_attributes.at("health_gpu0").at("gpu_uuid"), "GPU-00000000-1111-2222-3333-444444444444");
    EXPECT_EQ(leader.telemetry_attributes.at("health_gpu0").at("gpu_name"), "Fake H200");
    // The row remapper's bank histogram: every bank with all its spare rows.
    EXPECT_EQ(table.column("remap_bank_max").back(), 1536.0);
    EXPECT_EQ(table.column("remap_bank_low").back(), 0.0);
    EXPECT_EQ(table.column("remap_bank_none").back(), 0.0);
    EXPECT_EQ(leader.telemetry_attributes.at("health_gpu1").at("not_available.remap_bank_none"),
              "nvmlDeviceGetRowRemapperHistogram returned 3 (fake error)");
    // The PCIe card (GPU 1) has no ECC: not available with the return code, never zero.
    EXPECT_TRUE(std::isnan(leader.telemetry.at("health_gpu1").column("ecc_dbe_volatile").back()));
    EXPECT_EQ(leader.telemetry_attributes.at("health_gpu1").at("not_available.ecc_dbe_volatile"),
              "nvmlDeviceGetTotalEccErrors returned 3 (fake error)");
    EXPECT_EQ(outcome.analysis.exit_code, 0) << outcome.analysis.output;
    EXPECT_TRUE(health_findings(outcome).empty()) << outcome.summary.dump(2);
    EXPECT_EQ(drain_lines(outcome.drain), "");
    EXPECT_EQ(outcome.analysis.output.find("Hidden faults"), std::string::npos) << outcome.analysis.output;
    // The boards' serials and VBIOS versions: in the trace's inventory, and in the report's
    // hardware identity table beside the UUID and driver.
    nlohmann::json devices = leader.inventory.at("nvml").at("devices");  // a copy: [] on a missing key reads null
    ASSERT_EQ(devices.size(), 2u) << leader.inventory.dump(2);
    EXPECT_EQ(devices[0]["serial"], "1654923000017");
    EXPECT_EQ(devices[0]["vbios_version"], "96.00.AF.00.01");
    EXPECT_FALSE(devices[0].contains("serial_reason"));
    EXPECT_EQ(devices[1]["serial"], "1321021004242");
    EXPECT_EQ(devices[1]["vbios_version"], "92.00.45.00.06");
    const std::string report = read_text(outcome.folder / "report.html");
    EXPECT_NE(report.find("<td>GPU-00000000-1111-2222-3333-444444444444</td><td>1654923000017</td><td>999.99</td>"
                          "<td>96.00.AF.00.01</td>"),
              std::string::npos)
        << report;
    EXPECT_NE(report.find("<td>GPU-55555555-6666-7777-8888-999999999999</td><td>1321021004242</td><td>999.99</td>"
                          "<td>92.00.45.00.06</td>"),
              std::string::npos);
}

// telemetry.passive_health: false (to measure what the sources cost) reads none of them: no health
// table, no AER table, no finding, while the GPU's state telemetry stays.
TEST(EndToEndFakeNvml, PassiveHealthOffReadsNoHealthSource) {
    const ScratchFolder scratch("gpu-health-off");
    const auto outcome = run_with_fake(scratch, {"SHAKEDOWN_FAKE_NVML_XID=79"}, SHAKEDOWN_FAKE_NVML_PATH,
                                       "telemetry: {passive_health: false}\n");
    ASSERT_EQ(outcome.run.exit_code, 0) << outcome.run.output;
    const Trace leader = read_trace(outcome.folder / trace_relative_path(0));
    EXPECT_FALSE(leader.telemetry.contains("health_gpu0"));
    EXPECT_FALSE(leader.telemetry.contains("pcie_aer"));
    EXPECT_FALSE(leader.telemetry.empty());
    EXPECT_TRUE(health_findings(outcome).empty()) << outcome.summary.dump(2);
}

TEST(EndToEndFakeNvml, Xid79FailsAndDrains) {
    const ScratchFolder scratch("gpu-health-xid79");
    const auto outcome = run_with_fake(scratch, {"SHAKEDOWN_FAKE_NVML_XID=79"});
    ASSERT_EQ(outcome.run.exit_code, 0) << outcome.run.output;
    bool event = false;
    for (const auto& e : read_trace(outcome.folder / trace_relative_path(0)).events) event = event || e.text.ends_with("xid=79");
    EXPECT_TRUE(event) << "the Xid is not in /events";
    EXPECT_EQ(outcome.analysis.exit_code, 1) << outcome.analysis.output;
    EXPECT_EQ(outcome.summary["nodes"][0]["verdict"], "fail");
    const auto findings = health_findings(outcome);
    ASSERT_EQ(findings.size(), 1u) << outcome.summary.dump(2);
    EXPECT_EQ(findings[0]["level"], "fail");
    EXPECT_EQ(findings[0]["evidence"], "fault");
    EXPECT_EQ(findings[0]["cause"], "hardware");
    EXPECT_EQ(findings[0]["metric"], "xid");
    EXPECT_EQ(findings[0]["value"], 79.0);
    EXPECT_EQ(findings[0]["gpu_uuid"], "GPU-00000000-1111-2222-3333-444444444444");
    EXPECT_NE(drain_lines(outcome.drain).find("Xid 79 (GPU has fallen off the bus)"), std::string::npos) << outcome.drain;
    // The report's hidden-faults section lists it with its node and level.
    EXPECT_NE(outcome.analysis.output.find("Hidden faults (1):"), std::string::npos) << outcome.analysis.output;
    EXPECT_NE(outcome.analysis.output.find(" FAIL: "), std::string::npos) << outcome.analysis.output;
}

TEST(EndToEndFakeNvml, UnknownXidWarnsNamingIt) {
    const ScratchFolder scratch("gpu-health-xid-unknown");
    const auto outcome = run_with_fake(scratch, {"SHAKEDOWN_FAKE_NVML_XID=4242"});
    ASSERT_EQ(outcome.run.exit_code, 0) << outcome.run.output;
    EXPECT_EQ(outcome.analysis.exit_code, 0) << outcome.analysis.output;
    EXPECT_EQ(outcome.summary["nodes"][0]["verdict"], "warn");
    const auto findings = health_findings(outcome);
    ASSERT_EQ(findings.size(), 1u) << outcome.summary.dump(2);
    EXPECT_EQ(findings[0]["level"], "warn");
    EXPECT_NE(findings[0]["reason"].get<std::string>().find("Xid 4242 at"), std::string::npos) << findings[0].dump();
    EXPECT_NE(findings[0]["reason"].get<std::string>().find("not in shakedown's Xid table"), std::string::npos);
    EXPECT_EQ(drain_lines(outcome.drain), "");
}

TEST(EndToEndFakeNvml, PendingRowRemapFailsAndDrains) {
    const ScratchFolder scratch("gpu-health-remap");
    const auto outcome = run_with_fake(scratch, {"SHAKEDOWN_FAKE_NVML_REMAP_PENDING=1"});
    ASSERT_EQ(outcome.run.exit_code, 0) << outcome.run.output;
    EXPECT_EQ(outcome.analysis.exit_code, 1) << outcome.analysis.output;
    const auto findings = health_findings(outcome);
    ASSERT_EQ(findings.size(), 1u) << outcome.summary.dump(2);
    EXPECT_EQ(findings[0]["level"], "fail");
    EXPECT_EQ(findings[0]["metric"], "remap_pending");
    EXPECT_EQ(findings[0]["value"], 1.0);
    EXPECT_NE(drain_lines(outcome.drain).find("a row remap is pending"), std::string::npos) << outcome.drain;
    EXPECT_NE(outcome.analysis.output.find("[rule remap_pending]"), std::string::npos) << outcome.analysis.output;
}

TEST(EndToEndFakeNvml, PcieReplayRiseWarnsAndALargeOneFails) {
    {
        const ScratchFolder scratch("gpu-health-replay-small");
        const auto outcome = run_with_fake(scratch, {"SHAKEDOWN_FAKE_NVML_REPLAY_STEP=1"});
        ASSERT_EQ(outcome.run.exit_code, 0) << outcome.run.output;
        const auto findings = health_findings(outcome);
        ASSERT_EQ(findings.size(), 1u) << outcome.summary.dump(2);
        EXPECT_EQ(findings[0]["level"], "warn");
        EXPECT_EQ(findings[0]["metric"], "pcie_replay");
        EXPECT_EQ(findings[0]["reference"], 2.0);  // the first reading
        EXPECT_GT(findings[0]["value"].get<double>(), 2.0);
        EXPECT_EQ(drain_lines(outcome.drain), "");
    }
    {
        const ScratchFolder scratch("gpu-health-replay-large");
        const auto outcome = run_with_fake(scratch, {"SHAKEDOWN_FAKE_NVML_REPLAY_STEP=5000"});
        ASSERT_EQ(outcome.run.exit_code, 0) << outcome.run.output;
        EXPECT_EQ(outcome.analysis.exit_code, 1) << outcome.analysis.output;
        const auto findings = health_findings(outcome);
        ASSERT_EQ(findings.size(), 1u) << outcome.summary.dump(2);
        EXPECT_EQ(findings[0]["level"], "fail");
        EXPECT_NE(drain_lines(outcome.drain).find("PCIe replay counter 2 -> "), std::string::npos) << outcome.drain;
    }
}

TEST(EndToEndFakeNvml, NvlinkLinkDownFailsAndDrains) {
    const ScratchFolder scratch("gpu-health-nvlink-down");
    const auto outcome = run_with_fake(scratch, {"SHAKEDOWN_FAKE_NVML_NVLINK_DOWN=5"});
    ASSERT_EQ(outcome.run.exit_code, 0) << outcome.run.output;
    EXPECT_EQ(outcome.analysis.exit_code, 1) << outcome.analysis.output;
    const auto findings = health_findings(outcome);
    ASSERT_EQ(findings.size(), 1u) << outcome.summary.dump(2);
    EXPECT_EQ(findings[0]["metric"], "nvlink_links_up");
    EXPECT_EQ(findings[0]["value"], 17.0);
    const std::string drain = drain_lines(outcome.drain);
    EXPECT_NE(drain.find("17 of 18 NVLink links active"), std::string::npos) << drain;
    EXPECT_NE(drain.find("(inactive: link 5)"), std::string::npos) << drain;
}

TEST(EndToEndFakeNvml, RemapperBanksWithoutSpareRowsFailAndDrain) {
    const ScratchFolder scratch("gpu-health-banks-none");
    const auto outcome = run_with_fake(scratch, {"SHAKEDOWN_FAKE_NVML_REMAP_BANK_NONE=2"});
    ASSERT_EQ(outcome.run.exit_code, 0) << outcome.run.output;
    EXPECT_EQ(outcome.analysis.exit_code, 1) << outcome.analysis.output;
    const auto findings = health_findings(outcome);
    ASSERT_EQ(findings.size(), 1u) << outcome.summary.dump(2);
    EXPECT_EQ(findings[0]["level"], "fail");
    EXPECT_EQ(findings[0]["metric"], "remap_bank_none");
    EXPECT_EQ(findings[0]["value"], 2.0);
    const std::string drain = drain_lines(outcome.drain);
    EXPECT_NE(drain.find("remap_bank_none = 2: memory banks without a spare row"), std::string::npos) << drain;
    const std::string reason = findings[0]["reason"];
    EXPECT_NE(reason.find("; 1534 banks with all [rule remap_bank_none]"), std::string::npos) << reason;
}

TEST(EndToEndFakeNvml, RemapperBanksLowOnSpareRowsWarn) {
    const ScratchFolder scratch("gpu-health-banks-low");
    const auto outcome = run_with_fake(scratch, {"SHAKEDOWN_FAKE_NVML_REMAP_BANK_LOW=3"});
    ASSERT_EQ(outcome.run.exit_code, 0) << outcome.run.output;
    EXPECT_EQ(outcome.analysis.exit_code, 0) << outcome.analysis.output;
    EXPECT_EQ(outcome.summary["nodes"][0]["verdict"], "warn");
    const auto findings = health_findings(outcome);
    ASSERT_EQ(findings.size(), 1u) << outcome.summary.dump(2);
    EXPECT_EQ(findings[0]["level"], "warn");
    EXPECT_EQ(findings[0]["metric"], "remap_bank_low");
    EXPECT_NE(findings[0]["reason"].get<std::string>().find("[rule remap_bank_low]"), std::string::npos);
    EXPECT_EQ(drain_lines(outcome.drain), "");
}

// NVML answers for 16 links only (all active) on a part the spec table gives 18: links 16 and 17
// are missing. A profile saying 16 is what the site bought: no finding.
TEST(EndToEndFakeNvml, FewerNvlinkLinksThanThePartHasFailNamingTheMissingOnes) {
    const ScratchFolder scratch("gpu-health-nvlink-count");
    const auto outcome = run_with_fake(scratch, {"SHAKEDOWN_FAKE_NVML_NVLINK_COUNT=16"});
    ASSERT_EQ(outcome.run.exit_code, 0) << outcome.run.output;
    EXPECT_EQ(outcome.analysis.exit_code, 1) << outcome.analysis.output;
    const auto findings = health_findings(outcome);
    ASSERT_EQ(findings.size(), 1u) << outcome.summary.dump(2);
    EXPECT_EQ(findings[0]["metric"], "nvlink_links_up");
    EXPECT_EQ(findings[0]["value"], 16.0);
    const std::string drain = drain_lines(outcome.drain);
    EXPECT_NE(drain.find("GPU-00000000-1111-2222-3333-444444444444"), std::string::npos) << drain;
    EXPECT_NE(drain.find("16 of 16 NVLink links active"), std::string::npos) << drain;
    EXPECT_NE(drain.find("(not reported by NVML: link 16, 17)"), std::string::npos) << drain;
    // The drain line's reason is cut at Slurm's length: the whole one is in summary.json.
    const std::string reason = findings[0]["reason"];
    EXPECT_NE(reason.find("expected 18 (spec table: NVIDIA H200 SXM) [rule nvlink_down]"), std::string::npos) << reason;
}

TEST(EndToEndFakeNvml, ProfileNvlinkCountIsWhatTheGpusMustHave) {
    const ScratchFolder scratch("gpu-health-nvlink-profile");
    const auto profile = scratch.write("site.yaml", "classes:\n  - nodes: all\n    gpu: {nvlinks: 16}\n");
    const auto outcome = run_with_fake(scratch, {"SHAKEDOWN_FAKE_NVML_NVLINK_COUNT=16"}, SHAKEDOWN_FAKE_NVML_PATH, "",
                                       {"--profile", profile.string()});
    ASSERT_EQ(outcome.run.exit_code, 0) << outcome.run.output;
    EXPECT_TRUE(health_findings(outcome).empty()) << outcome.summary.dump(2);
    // The profile rule names the fake's PCIe card (no NVLink at all) at the start: its business,
    // not the whole-run health rule's, which has no NVLink reading of that GPU to judge.
    EXPECT_EQ(drain_lines(outcome.drain).find("gpu_health:"), std::string::npos) << outcome.drain;
    // The same profile with the planted link down: 15 of the 16 the profile expects.
    const ScratchFolder down("gpu-health-nvlink-profile-down");
    const auto down_profile = down.write("site.yaml", "classes:\n  - nodes: all\n    gpu: {nvlinks: 16}\n");
    const auto failed = run_with_fake(down, {"SHAKEDOWN_FAKE_NVML_NVLINK_COUNT=16", "SHAKEDOWN_FAKE_NVML_NVLINK_DOWN=3"},
                                      SHAKEDOWN_FAKE_NVML_PATH, "", {"--profile", down_profile.string()});
    ASSERT_EQ(failed.run.exit_code, 0) << failed.run.output;
    const auto findings = health_findings(failed);
    ASSERT_EQ(findings.size(), 1u) << failed.summary.dump(2);
    EXPECT_NE(findings[0]["reason"].get<std::string>().find("(inactive: link 3), expected 16 (profile gpu.nvlinks)"),
              std::string::npos)
        << findings[0].dump();
}

TEST(EndToEndFakeNvml, NvlinkCrcRiseWarns) {
    const ScratchFolder scratch("gpu-health-crc");
    const auto outcome = run_with_fake(scratch, {"SHAKEDOWN_FAKE_NVML_CRC_STEP=7"});
    ASSERT_EQ(outcome.run.exit_code, 0) << outcome.run.output;
    EXPECT_EQ(outcome.analysis.exit_code, 0) << outcome.analysis.output;
    const auto findings = health_findings(outcome);
    ASSERT_EQ(findings.size(), 1u) << outcome.summary.dump(2);
    EXPECT_EQ(findings[0]["level"], "warn");
    EXPECT_EQ(findings[0]["metric"], "nvlink_crc");
    EXPECT_EQ(findings[0]["reference"], 0.0);
    EXPECT_NE(findings[0]["reason"].get<std::string>().find("[rule nvlink_error_rise]"), std::string::npos);
}

TEST(EndToEndFakeNvml, DoubleBitEccRiseFailsAndSingleBitRiseWarns) {
    const ScratchFolder scratch("gpu-health-ecc");
    const auto outcome = run_with_fake(scratch, {"SHAKEDOWN_FAKE_NVML_DBE_STEP=1", "SHAKEDOWN_FAKE_NVML_SBE_STEP=2"});
    ASSERT_EQ(outcome.run.exit_code, 0) << outcome.run.output;
    EXPECT_EQ(outcome.analysis.exit_code, 1) << outcome.analysis.output;
    const auto findings = health_findings(outcome);
    ASSERT_EQ(findings.size(), 2u) << outcome.summary.dump(2);
    std::map<std::string, std::string> level_of;
    for (const auto& finding : findings) level_of[finding["metric"]] = finding["level"];
    EXPECT_EQ(level_of["ecc_dbe_volatile"], "fail");
    EXPECT_EQ(level_of["ecc_sbe_volatile"], "warn");
    EXPECT_NE(drain_lines(outcome.drain).find("uncorrected (double-bit) ECC ecc_dbe_volatile 0 -> "), std::string::npos)
        << outcome.drain;
}

TEST(EndToEndFakeNvml, FabricNotRegisteredFails) {
    const ScratchFolder scratch("gpu-health-fabric");
    const auto outcome = run_with_fake(scratch, {"SHAKEDOWN_FAKE_NVML_FABRIC_STATE=2"});
    ASSERT_EQ(outcome.run.exit_code, 0) << outcome.run.output;
    EXPECT_EQ(outcome.analysis.exit_code, 1) << outcome.analysis.output;
    const auto findings = health_findings(outcome);
    ASSERT_EQ(findings.size(), 1u) << outcome.summary.dump(2);
    EXPECT_EQ(findings[0]["metric"], "fabric_state");
    EXPECT_NE(findings[0]["reason"].get<std::string>().find("state 2: in progress"), std::string::npos) << findings[0].dump();
}

TEST(EndToEndFakeNvml, FabricErrorStatusFails) {
    const ScratchFolder scratch("gpu-health-fabric-status");
    const auto outcome = run_with_fake(scratch, {"SHAKEDOWN_FAKE_NVML_FABRIC_STATUS=999"});
    ASSERT_EQ(outcome.run.exit_code, 0) << outcome.run.output;
    const auto findings = health_findings(outcome);
    ASSERT_EQ(findings.size(), 1u) << outcome.summary.dump(2);
    EXPECT_EQ(findings[0]["level"], "fail");
    EXPECT_EQ(findings[0]["metric"], "fabric_status");
    EXPECT_EQ(findings[0]["value"], 999.0);
}

TEST(EndToEndFakeNvml, OldDriverWithoutHealthSymbolsIsNotAvailableNotZero) {
    const ScratchFolder scratch("gpu-health-old-driver");
    const auto outcome = run_with_fake(scratch, {"SHAKEDOWN_FAKE_NVML_XID=79"}, SHAKEDOWN_FAKE_NVML_OLD_PATH);
    ASSERT_EQ(outcome.run.exit_code, 0) << outcome.run.output;
    const Trace leader = read_trace(outcome.folder / trace_relative_path(0));
    const SampleTable& table = leader.telemetry.at("health_gpu0");
    for (const char* column : {"pcie_replay", "remap_pending", "nvlink_crc", "fabric_state", "xid_count"}) {
        for (double value : table.column(column)) EXPECT_TRUE(std::isnan(value)) << column;
    }
    const auto& facts = leader.telemetry_attributes.at("health_gpu0");
    EXPECT_EQ(facts.at("not_available.pcie_replay"), "nvmlDeviceGetPcieReplayCounter: symbol not in this driver's NVML");
    EXPECT_EQ(facts.at("not_available.xid_count"), "nvmlEventSetCreate: symbol not in this driver's NVML");
    EXPECT_EQ(facts.at("not_available.remap_bank_none"), "nvmlDeviceGetRowRemapperHistogram: symbol not in this driver's NVML");
    for (double value : table.column("remap_bank_none")) EXPECT_TRUE(std::isnan(value));
    EXPECT_EQ(table.column("ecc_sbe_volatile").back(), 3.0);  // what the old driver has is still read
    EXPECT_EQ(outcome.analysis.exit_code, 0) << outcome.analysis.output;
    EXPECT_TRUE(health_findings(outcome).empty()) << outcome.summary.dump(2);
}

TEST(EndToEndFakeNvml, UnsupportedFunctionRecordsItsReturnCode) {
    const ScratchFolder scratch("gpu-health-unsupported");
    const auto outcome = run_with_fake(
        scratch, {"SHAKEDOWN_FAKE_NVML_UNSUPPORTED=nvmlDeviceGetRemappedRows,nvmlDeviceGetSerial,nvmlDeviceGetVbiosVersion",
                  "SHAKEDOWN_FAKE_NVML_REMAP_PENDING=1"});
    ASSERT_EQ(outcome.run.exit_code, 0) << outcome.run.output;
    const Trace leader = read_trace(outcome.folder / trace_relative_path(0));
    EXPECT_EQ(leader.telemetry_attributes.at("health_gpu0").at("not_available.remap_pending"),
              "nvmlDeviceGetRemappedRows returned 3 (fake error)");
    EXPECT_TRUE(std::isnan(leader.telemetry.at("health_gpu0").column("remap_pending").back()));
    EXPECT_TRUE(health_findings(outcome).empty()) << outcome.summary.dump(2);  // unreadable: no verdict either way
    // No serial nor VBIOS: null with NVML's return code in the inventory (never ""), "not recorded"
    // in the report's identity table.
    const nlohmann::json& gpu0 = leader.inventory.at("nvml").at("devices").at(0);
    ASSERT_TRUE(gpu0.contains("serial") && gpu0.contains("vbios_version")) << gpu0.dump(2);
    EXPECT_TRUE(gpu0["serial"].is_null()) << gpu0.dump(2);
    EXPECT_EQ(gpu0.value("serial_reason", ""), "nvmlDeviceGetSerial returned 3 (fake error)");
    EXPECT_TRUE(gpu0["vbios_version"].is_null());
    EXPECT_EQ(gpu0.value("vbios_version_reason", ""), "nvmlDeviceGetVbiosVersion returned 3 (fake error)");
    const std::string report = read_text(outcome.folder / "report.html");
    EXPECT_NE(report.find("<td>GPU-00000000-1111-2222-3333-444444444444</td><td>not recorded</td><td>999.99</td>"
                          "<td>not recorded</td>"),
              std::string::npos)
        << report;
    EXPECT_EQ(report.find("1654923000017"), std::string::npos);
}

// PCIe AER on a fake sysfs tree (SHAKEDOWN_PCI_SYSFS_ROOT): a GPU below a root port, an NVMe
// drive whose aer_dev_fatal cannot be read; a thread bumps one counter every 100 ms during the run.
class FakeSysfsAer {
public:
    explicit FakeSysfsAer(const fs::path& top) : top_(top) {
        device("pci0000:00/0000:00:01.0", "0x060400");
        device("pci0000:00/0000:00:01.0/0000:19:00.0", "0x030200");
        device("pci0000:00/0000:00:03.0/0000:5e:00.0", "0x010802");
        fs::remove(top_ / "devices/pci0000:00/0000:00:03.0/0000:5e:00.0/aer_dev_fatal");
        fs::create_directories(top_ / "devices/pci0000:00/0000:00:03.0/0000:5e:00.0/aer_dev_fatal");  // unreadable
    }
    fs::path root() const { return top_ / "bus/pci/devices"; }
    void write(const std::string& device, const std::string& kind, int total) const {
        const char* upper = kind == "fatal" ? "FATAL" : kind == "nonfatal" ? "NONFATAL" : "COR";
        std::ofstream(top_ / "devices" / device / ("aer_dev_" + kind)) << "RxErr 0\nTOTAL_ERR_" << upper << " " << total << "\n";
    }

private:
    void device(const std::string& path, const char* pci_class) {
        const fs::path dir = top_ / "devices" / path;
        fs::create_directories(dir);
        std::ofstream(dir / "class") << pci_class << "\n";
        for (const char* kind : {"correctable", "nonfatal", "fatal"}) write(path, kind, 0);
        fs::create_directories(root());
        fs::create_directory_symlink(dir, root() / dir.filename());
    }
    fs::path top_;
};

class AerBumper {
public:
    // Counts up every 100 ms to at most `limit`, so a run slowed down by a loaded machine cannot
    // carry a "small" rise past a rule's bound.
    AerBumper(const FakeSysfsAer& sysfs, std::string device, std::string kind, int limit = std::numeric_limits<int>::max())
        : thread_([this, &sysfs, device, kind, limit] {
              int value = 0;
              while (!stop_) {
                  std::this_thread::sleep_for(std::chrono::milliseconds(100));
                  if (value < limit) sysfs.write(device, kind, ++value);
              }
          }) {}
    ~AerBumper() {
        stop_ = true;
        thread_.join();
    }

private:
    std::atomic<bool> stop_{false};
    std::thread thread_;
};

Outcome run_with_fake_aer(const ScratchFolder& scratch, const FakeSysfsAer& sysfs) {
    const auto config = scratch.write("config.yaml", "params:\n  stream: {array_mib: 32, repetitions: 60}\n");
    const auto thresholds = scratch.write("thresholds.yaml", speed_rules_off);
    std::vector<std::string> command{"env", "SHAKEDOWN_PCI_SYSFS_ROOT=" + sysfs.root().string()};
    const auto launch = mpirun(2, {SHAKEDOWN_DRIVER, "run", "--tests", "stream", "--config", config.string(), "--out",
                                   scratch.path().string(), "--name", "run"});
    command.insert(command.end(), launch.begin(), launch.end());
    Outcome outcome;
    outcome.run = run_process(command);
    outcome.folder = scratch.path() / "run";
    outcome.analysis = run_process({SHAKEDOWN_ANALYZER, outcome.folder.string(), "--thresholds", thresholds.string()});
    if (fs::exists(outcome.folder / "summary.json")) outcome.summary = read_json(outcome.folder / "summary.json");
    std::ifstream drain(outcome.folder / "drain.txt");
    std::stringstream text;
    text << drain.rdbuf();
    outcome.drain = text.str();
    return outcome;
}

TEST(EndToEndFakeSysfsAer, FatalAerRiseFailsAndDrains) {
    const ScratchFolder scratch("aer-fatal");
    const FakeSysfsAer sysfs(scratch.path() / "sys");
    Outcome outcome;
    {
        const AerBumper bumper(sysfs, "pci0000:00/0000:00:01.0", "fatal");  // the GPU's root port
        outcome = run_with_fake_aer(scratch, sysfs);
    }
    ASSERT_EQ(outcome.run.exit_code, 0) << outcome.run.output;
    const Trace leader = read_trace(outcome.folder / trace_relative_path(0));
    ASSERT_TRUE(leader.telemetry.contains("pcie_aer"));
    // The bumper rewrites the file in place while the source reads it: a reading may be torn
    // (NaN), so look at the highest one (the kernel's files are not torn).
    double highest = 0;
    for (double value : leader.telemetry.at("pcie_aer").column("0000:00:01.0.aer_fatal"))
        if (std::isfinite(value)) highest = std::max(highest, value);
    EXPECT_GT(highest, 0.0);
    EXPECT_EQ(outcome.analysis.exit_code, 1) << outcome.analysis.output;
    const auto findings = health_findings(outcome);
    ASSERT_EQ(findings.size(), 1u) << outcome.summary.dump(2);
    EXPECT_EQ(findings[0]["test"], "pcie_aer");
    EXPECT_EQ(findings[0]["level"], "fail");
    EXPECT_EQ(findings[0]["metric"], "0000:00:01.0.aer_fatal");
    const std::string drain = drain_lines(outcome.drain);
    EXPECT_NE(drain.find("pcie_aer: PCIe bridge 0000:00:01.0: AER fatal errors "), std::string::npos) << drain;
    EXPECT_NE(drain.find("[rule aer_fatal_rise]"), std::string::npos) << drain;
}

TEST(EndToEndFakeSysfsAer, SmallCorrectableRiseAndUnreadableFileGiveNoFinding) {
    const ScratchFolder scratch("aer-correctable");
    const FakeSysfsAer sysfs(scratch.path() / "sys");
    Outcome outcome;
    {
        const AerBumper bumper(sysfs, "pci0000:00/0000:00:01.0/0000:19:00.0", "correctable", /*limit=*/50);
        outcome = run_with_fake_aer(scratch, sysfs);
    }
    ASSERT_EQ(outcome.run.exit_code, 0) << outcome.run.output;
    const Trace leader = read_trace(outcome.folder / trace_relative_path(0));
    const auto& table = leader.telemetry.at("pcie_aer");
    double lowest = 1e300, highest = 0;  // finite readings only: one may be torn (see above)
    for (double value : table.column("0000:19:00.0.aer_correctable"))
        if (std::isfinite(value)) lowest = std::min(lowest, value), highest = std::max(highest, value);
    const double rise = highest - lowest;
    ASSERT_GT(rise, 0.0);
    ASSERT_LE(rise, 100.0) << "the run was long enough to pass the default warn rise";
    for (double value : table.column("0000:5e:00.0.aer_fatal")) EXPECT_TRUE(std::isnan(value));
    EXPECT_NE(leader.telemetry_attributes.at("pcie_aer").at("not_available.0000:5e:00.0.aer_fatal").find("aer_dev_fatal"),
              std::string::npos);
    EXPECT_EQ(outcome.analysis.exit_code, 0) << outcome.analysis.output;
    EXPECT_TRUE(health_findings(outcome).empty()) << outcome.summary.dump(2);
}

}  // namespace
}  // namespace shakedown::testing
