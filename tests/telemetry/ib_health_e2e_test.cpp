// End to end on a fake InfiniBand sysfs tree (this machine has no RDMA device): the real driver
// under the real mpirun reads one port from `telemetry.infiniband_sysfs_root` while a thread here
// bumps a link-flap counter; shakedown-analyze must give the stated verdict and drain line:
// link_downed rising FAILs and drains (rule link_flap), link_error_recovery rising WARNs and does
// not drain. The port's PKey table is recorded in the trace as read, or "not available" naming the
// file that could not be read, never an empty set. PKey agreement across nodes needs several
// nodes: tests/analysis/pkey_rule_test.cpp compares real trace files of several nodes.
#include "e2e_support.hpp"
#include "trace/trace_reader.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

namespace shakedown::testing {
namespace {

namespace fs = std::filesystem;

// Long enough for several one-second counter readings on this shared 2-core machine.
const std::string stream_params = R"(
params:
  stream: {array_mib: 32, repetitions: 100}
)";

class FakeIbPort {
public:
    explicit FakeIbPort(const fs::path& root) : port_(root / "mlx5_0/ports/1") {
        write("state", "4: ACTIVE\n");
        write("phys_state", "5: LinkUp\n");
        write("rate", "400 Gb/sec (4X NDR)\n");
        write("link_layer", "InfiniBand\n");
        write("counters/link_downed", "1\n");
        write("counters/link_error_recovery", "4\n");
        write("counters/symbol_error", "0\n");
        // The default partition (full member) and one limited-member partition; the rest empty.
        const char* entries[] = {"0xffff", "0x8001", "0x0000", "0x0000"};
        for (int i = 0; i < 4; ++i) write("pkeys/" + std::to_string(i), std::string(entries[i]) + "\n");
    }
    void write(const std::string& file, const std::string& text) const {
        fs::create_directories((port_ / file).parent_path());
        std::ofstream(port_ / file) << text;
    }
    fs::path path() const { return port_; }

private:
    fs::path port_;
};

// Bumps one counter file every 100 ms from construction to destruction.
class CounterBumper {
public:
    CounterBumper(const FakeIbPort& port, std::string file, int start)
        : thread_([this, &port, file, start] {
              int value = start;
              while (!stop_) {
                  std::this_thread::sleep_for(std::chrono::milliseconds(100));
                  port.write(file, std::to_string(++value) + "\n");
              }
          }) {}
    ~CounterBumper() {
        stop_ = true;
        thread_.join();
    }

private:
    std::atomic<bool> stop_{false};
    std::thread thread_;
};

struct Outcome {
    ProcessResult run;
    ProcessResult analysis;
    fs::path folder;
    nlohmann::json summary;
    std::string drain;
};

// One run on the fake port while `bump` (a counter file, or "") rises, then the analyzer.
Outcome run_on(const ScratchFolder& scratch, const FakeIbPort& port, const fs::path& sysfs_root, const std::string& bump,
               int start = 0, const std::string& params = stream_params) {
    const auto config = scratch.write("config.yaml", params + fmt::format("telemetry: {{infiniband_sysfs_root: {}}}\n",
                                                                          sysfs_root.string()));
    const auto thresholds = scratch.write("thresholds.yaml", speed_rules_off);
    const auto launch = mpirun(2, {SHAKEDOWN_DRIVER, "run", "--tests", "stream", "--config", config.string(), "--out",
                                   scratch.path().string(), "--name", "run"});
    Outcome outcome;
    if (bump.empty()) {
        outcome.run = run_process(launch);
    } else {
        const CounterBumper bumper(port, bump, start);
        outcome.run = run_process(launch);
    }
    outcome.folder = scratch.path() / "run";
    outcome.analysis = run_process({SHAKEDOWN_ANALYZER, outcome.folder.string(), "--thresholds", thresholds.string()});
    if (fs::exists(outcome.folder / "summary.json")) outcome.summary = read_json(outcome.folder / "summary.json");
    std::ifstream drain(outcome.folder / "drain.txt");
    std::stringstream text;
    text << drain.rdbuf();
    outcome.drain = text.str();
    return outcome;
}

std::vector<nlohmann::json> port_findings(const Outcome& outcome) {
    std::vector<nlohmann::json> found;
    if (!outcome.summary.contains("nodes")) return found;
    for (const auto& finding : outcome.summary["nodes"][0]["findings"])
        if (finding["source"] == "port_counters" || finding["source"] == "pkeys") found.push_back(finding);
    return found;
}

std::string drain_lines(const std::string& drain) {
    std::string lines;
    std::istringstream in(drain);
    for (std::string line; std::getline(in, line);)
        if (line.starts_with("scontrol")) lines += line + "\n";
    return lines;
}

void expect_two_readings(const fs::path& folder) {
    const auto readings = read_trace(folder / trace_relative_path(0)).telemetry.at("mlx5_0_port1").column("counters_t");
    ASSERT_GE(std::set<double>(readings.begin(), readings.end()).size(), 2u)
        << "the run was shorter than two counter readings: make the stream parameters larger";
}

TEST(EndToEndFakeIbSysfs, LinkDownedDuringTheRunFailsAndDrains) {
    const ScratchFolder scratch("ib-link-downed");
    const fs::path root = scratch.path() / "sys/class/infiniband";
    const FakeIbPort port(root);
    const auto outcome = run_on(scratch, port, root, "counters/link_downed", 1);
    ASSERT_EQ(outcome.run.exit_code, 0) << outcome.run.output;
    expect_two_readings(outcome.folder);
    EXPECT_EQ(outcome.analysis.exit_code, 1) << outcome.analysis.output;
    EXPECT_EQ(outcome.summary["nodes"][0]["verdict"], "fail");
    const auto findings = port_findings(outcome);
    ASSERT_EQ(findings.size(), 1u) << outcome.summary.dump(2);
    EXPECT_EQ(findings[0]["level"], "fail");
    EXPECT_EQ(findings[0]["metric"], "error_link_downed");
    EXPECT_EQ(findings[0]["cause"], "hardware");
    EXPECT_GE(findings[0]["reference"].get<double>(), 1.0);
    EXPECT_GT(findings[0]["value"].get<double>(), findings[0]["reference"].get<double>());
    const std::string drain = drain_lines(outcome.drain);
    EXPECT_NE(drain.find("mlx5_0 port 1: link_downed +"), std::string::npos) << drain;
    EXPECT_NE(drain.find("[rule link_flap]"), std::string::npos) << drain;
}

TEST(EndToEndFakeIbSysfs, LinkErrorRecoveryDuringTheRunWarnsWithoutDraining) {
    const ScratchFolder scratch("ib-link-recovery");
    const fs::path root = scratch.path() / "sys/class/infiniband";
    const FakeIbPort port(root);
    const auto outcome = run_on(scratch, port, root, "counters/link_error_recovery", 4);
    ASSERT_EQ(outcome.run.exit_code, 0) << outcome.run.output;
    expect_two_readings(outcome.folder);
    EXPECT_EQ(outcome.analysis.exit_code, 0) << outcome.analysis.output;
    EXPECT_EQ(outcome.summary["nodes"][0]["verdict"], "warn");
    const auto findings = port_findings(outcome);
    ASSERT_EQ(findings.size(), 1u) << outcome.summary.dump(2);
    EXPECT_EQ(findings[0]["level"], "warn");
    EXPECT_EQ(findings[0]["metric"], "error_link_error_recovery");
    EXPECT_NE(findings[0]["reason"].get<std::string>().find("[rule link_error_recovery]"), std::string::npos);
    EXPECT_EQ(drain_lines(outcome.drain), "");
}

TEST(EndToEndFakeIbSysfs, SteadyPortRecordsItsPkeysAndGivesNoFinding) {
    const ScratchFolder scratch("ib-steady");
    const fs::path root = scratch.path() / "sys/class/infiniband";
    const FakeIbPort port(root);
    const auto outcome = run_on(scratch, port, root, "");
    ASSERT_EQ(outcome.run.exit_code, 0) << outcome.run.output;
    const Trace leader = read_trace(outcome.folder / trace_relative_path(0));
    const auto& facts = leader.telemetry_attributes.at("mlx5_0_port1");
    EXPECT_EQ(facts.at("pkeys"), "0x8001,0xffff");  // the empty entries are no PKey
    EXPECT_FALSE(facts.contains("not_available.pkeys"));
    EXPECT_EQ(outcome.analysis.exit_code, 0) << outcome.analysis.output;
    EXPECT_TRUE(port_findings(outcome).empty()) << outcome.summary.dump(2);
    EXPECT_EQ(drain_lines(outcome.drain), "");
}

TEST(EndToEndFakeIbSysfs, UnreadablePkeyEntryIsNotAvailableNeverAnEmptySet) {
    const ScratchFolder scratch("ib-pkey-unreadable");
    const fs::path root = scratch.path() / "sys/class/infiniband";
    const FakeIbPort port(root);
    fs::remove(port.path() / "pkeys/2");
    fs::create_directories(port.path() / "pkeys/2");  // a read of it fails, as a sysfs file that refuses reads
    // The PKeys are read once at the start: a short run is enough.
    const auto outcome = run_on(scratch, port, root, "", 0, "params:\n  stream: {array_mib: 8, repetitions: 5}\n");
    ASSERT_EQ(outcome.run.exit_code, 0) << outcome.run.output;
    const Trace leader = read_trace(outcome.folder / trace_relative_path(0));
    const auto& facts = leader.telemetry_attributes.at("mlx5_0_port1");
    std::string shown;
    for (const auto& [key, value] : facts) shown += key + "=" + value + "; ";
    EXPECT_FALSE(facts.contains("pkeys")) << shown;
    ASSERT_TRUE(facts.contains("not_available.pkeys")) << shown;
    EXPECT_NE(facts.at("not_available.pkeys").find("pkeys/2: cannot be read"), std::string::npos) << facts.at("not_available.pkeys");
    EXPECT_EQ(outcome.analysis.exit_code, 0) << outcome.analysis.output;
    EXPECT_TRUE(port_findings(outcome).empty()) << outcome.summary.dump(2);
}

}  // namespace
}  // namespace shakedown::testing
