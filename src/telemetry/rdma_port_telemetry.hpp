// The counters and link state of one RDMA port (InfiniBand or RoCE) over time, read from sysfs
// (<root>/<device>/ports/<n>/counters, hw_counters, state, phys_state, rate; pkeys once): no verbs, no MADs of
// our own, so it works wherever the kernel exposes the port, and costs nothing where it does not.
// One table per port, named "mlx5_0_port1"; error counters are columns "error_<sysfs name>"
// (telemetry/rdma_port_names.hpp), so the analyzer can judge their increase over the whole run.
#pragma once

#include "telemetry/kernel_file.hpp"
#include "telemetry/rdma_pkeys.hpp"
#include "telemetry/telemetry_source.hpp"
#include "telemetry/read_period.hpp"

#include <array>
#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace shakedown {

// Why not at the sampler's rate (10 Hz by default): on mlx5 every read of a counters/ file is a
// PMA query to the HCA firmware, and state/rate an ib_query_port, also a firmware command. At 10 Hz
// that is hundreds of commands per second per port, queued beside the benchmarks' own; the
// whole-run delta and test windows of seconds need no more than one reading per second.
inline constexpr std::chrono::milliseconds default_rdma_read_period{1000};

inline constexpr const char* default_infiniband_sysfs_root = "/sys/class/infiniband";

class RdmaPortTelemetry : public TelemetrySource {
public:
    // `port_dir` is <root>/<rdma_device>/ports/<port>. Counters whose files are absent (a driver
    // without hw_counters, an IB-only counter on RoCE) get no column; one that stops answering
    // later gives NaN.
    RdmaPortTelemetry(std::string rdma_device, int port, const std::filesystem::path& port_dir,
                      std::chrono::steady_clock::duration read_period = default_rdma_read_period);

    std::string device() const override { return device_; }
    // t, counters_t, state, phys_state, rate_gbps, then one column per counter found.
    std::vector<SampleTable::Column> columns() const override;
    // Rows between two sysfs readings repeat the last reading (counters_t says when it was taken).
    std::vector<double> sample() override;
    std::vector<double> final_sample() override;  // always reads sysfs
    std::map<std::string, std::string> attributes() const override;

    std::size_t counter_count() const { return counters_.size(); }

private:
    struct Counter {
        SampleTable::Column column;
        KernelFile file;
    };

    void read_sysfs(double t);

    std::string rdma_device_;
    int port_ = 0;
    std::string device_;
    std::string link_layer_;  // "InfiniBand" or "Ethernet" (RoCE), read once
    PkeyTable pkeys_;         // read once: the subnet manager programs it, the analyzer compares nodes
    KernelFile state_;        // "4: ACTIVE"
    KernelFile phys_state_;   // "5: LinkUp"
    KernelFile rate_;         // "200 Gb/sec (4X HDR)"
    std::vector<Counter> counters_;
    ReadPeriod reads_;
    std::vector<double> reading_;      // counters_t, state, phys_state, rate_gbps, counters...
    std::array<char, 128> buffer_{};   // every file read is one short line
};

// One source per port of every device under `sysfs_root` (normally /sys/class/infiniband), in
// name order; none, and no cost, when the folder does not exist (no RDMA device or driver).
std::vector<std::unique_ptr<TelemetrySource>> rdma_port_sources(
    const std::filesystem::path& sysfs_root,
    std::chrono::steady_clock::duration read_period = default_rdma_read_period);

}  // namespace shakedown
