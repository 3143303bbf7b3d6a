// End to end on a fake sysfs tree (this machine has no RDMA device): the real driver under the
// real mpirun reads an RDMA port from `telemetry.infiniband_sysfs_root`, while a writer thread
// here bumps the port's symbol_error file; shakedown-analyze must then FAIL the node naming
// the port and the counter. The same run without bumps passes.
#include "e2e_support.hpp"
#include "trace/trace_reader.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <set>
#include <thread>

namespace shakedown::testing {
namespace {

namespace fs = std::filesystem;

// Long enough for several one-second counter readings on this shared 2-core machine.
const std::string stream_params = R"(
params:
  stream: {array_mib: 32, repetitions: 200}
)";

class FakeSysfsPort {
public:
    explicit FakeSysfsPort(const fs::path& root) : port_(root / "mlx5_0/ports/1") {
        write("state", "4: ACTIVE\n");
        write("phys_state", "5: LinkUp\n");
        write("rate", "200 Gb/sec (4X HDR)\n");
        write("link_layer", "InfiniBand\n");
        write("counters/symbol_error", "5\n");
        write("counters/port_rcv_errors", "0\n");
        write("counters/port_xmit_data", "1000\n");
    }
    // Rewrites the file in place (same inode), as the kernel's counter "changes".
    void write(const std::string& file, const std::string& text) const {
        fs::create_directories((port_ / file).parent_path());
        std::ofstream(port_ / file) << text;
    }

private:
    fs::path port_;
};

// Bumps symbol_error every 100 ms from construction to destruction.
class SymbolErrorBumper {
public:
    explicit SymbolErrorBumper(const FakeSysfsPort& port)
        : thread_([this, &port] {
              int value = 5;
              while (!stop_) {
                  std::this_thread::sleep_for(std::chrono::milliseconds(100));
                  port.write("counters/symbol_error", std::to_string(++value) + "\n");
              }
          }) {}
    ~SymbolErrorBumper() {
        stop_ = true;
        thread_.join();
    }

private:
    std::atomic<bool> stop_{false};
    std::thread thread_;
};

std::string config_text(const fs::path& sysfs_root) {
    return stream_params + fmt::format("telemetry: {{infiniband_sysfs_root: {}}}\n", sysfs_root.string());
}

TEST(EndToEndFakeSysfs, SymbolErrorsDuringTheRunFailTheNode) {
    const ScratchFolder scratch("rdma-ports");
    const fs::path sysfs_root = scratch.path() / "fake-sysfs/class/infiniband";
    const FakeSysfsPort port(sysfs_root);
    const auto config = scratch.write("ports.yaml", config_text(sysfs_root));
    const auto thresholds = scratch.write("thresholds.yaml", speed_rules_off);

    ProcessResult run;
    {
        const SymbolErrorBumper bumper(port);
        run = run_process(mpirun(2, {SHAKEDOWN_DRIVER, "run", "--tests", "stream", "--config", config.string(), "--out",
                                     scratch.path().string(), "--name", "bumped"}));
    }
    ASSERT_EQ(run.exit_code, 0) << run.output;  // the tests themselves pass: only the counters rose
    const fs::path folder = scratch.path() / "bumped";

    const Trace leader = read_trace(folder / trace_relative_path(0));
    ASSERT_TRUE(leader.telemetry.contains("mlx5_0_port1")) << "no port table in the leader's trace";
    const SampleTable& table = leader.telemetry.at("mlx5_0_port1");
    const auto readings = table.column("counters_t");
    ASSERT_GE(std::set<double>(readings.begin(), readings.end()).size(), 2u)
        << "the run was shorter than two counter readings: make the stream parameters larger";
    EXPECT_EQ(table.column("state").front(), 4.0);
    EXPECT_FALSE(read_trace(folder / trace_relative_path(1)).telemetry.contains("mlx5_0_port1"));  // leaders only

    const auto analysis = run_process({SHAKEDOWN_ANALYZER, folder.string(), "--thresholds", thresholds.string()});
    EXPECT_EQ(analysis.exit_code, 1) << analysis.output;
    EXPECT_NE(analysis.output.find("rdma_port_counters"), std::string::npos) << analysis.output;
    EXPECT_NE(analysis.output.find("mlx5_0 port 1: symbol_error +"), std::string::npos) << analysis.output;
    EXPECT_EQ(analysis.output.find("port_rcv_errors +"), std::string::npos) << analysis.output;
    const auto summary = read_json(folder / "summary.json");
    EXPECT_EQ(summary["nodes"][0]["verdict"], "fail") << summary.dump(2);
}

TEST(EndToEndFakeSysfs, SteadyCountersPass) {
    const ScratchFolder scratch("rdma-ports-steady");
    const fs::path sysfs_root = scratch.path() / "fake-sysfs/class/infiniband";
    const FakeSysfsPort port(sysfs_root);
    const auto config = scratch.write("ports.yaml", config_text(sysfs_root));
    const auto thresholds = scratch.write("thresholds.yaml", speed_rules_off);
    const auto run = run_process(mpirun(2, {SHAKEDOWN_DRIVER, "run", "--tests", "stream", "--config", config.string(),
                                            "--out", scratch.path().string(), "--name", "steady"}));
    ASSERT_EQ(run.exit_code, 0) << run.output;
    const auto readings = read_trace(scratch.path() / "steady" / trace_relative_path(0)).telemetry.at("mlx5_0_port1").column("counters_t");
    ASSERT_GE(std::set<double>(readings.begin(), readings.end()).size(), 2u) << "too short to compare two readings";
    const auto analysis =
        run_process({SHAKEDOWN_ANALYZER, (scratch.path() / "steady").string(), "--thresholds", thresholds.string()});
    EXPECT_EQ(analysis.exit_code, 0) << analysis.output;
    EXPECT_EQ(analysis.output.find("rdma_port_counters"), std::string::npos) << analysis.output;
}

}  // namespace
}  // namespace shakedown::testing
