// A device whose state is sampled over time: the host, each GPU. The sampler calls sample()
// from its own thread at a fixed rate; each row goes into the SampleTable of that device and
// ends up as /telemetry/<device> in the trace.
#pragma once

#include "core/result.hpp"

#include <filesystem>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace shakedown {

// A value a source could not read this time: NaN, never a plausible-looking zero.
inline constexpr double not_available = std::numeric_limits<double>::quiet_NaN();

class TelemetrySource {
public:
    virtual ~TelemetrySource() = default;

    virtual std::string device() const = 0;  // "host", "gpu0", ...: unique per node
    // Column 0 is always {"t", "s"}: seconds since the Unix epoch, as now_utc() gives.
    virtual std::vector<SampleTable::Column> columns() const = 0;
    // One row matching columns(); NaN where a counter cannot be read this time.
    virtual std::vector<double> sample() = 0;
    // The row taken as sampling stops: a source that repeats a cached reading between reads
    // (RDMA port counters) reads afresh here, so what happened in the last moments counts.
    virtual std::vector<double> final_sample() { return sample(); }
    // Facts that identify the device (GPU UUID, PCI bus id, model): trace attributes, so the
    // analyzer can match telemetry to the GPU a rank was bound to.
    virtual std::map<std::string, std::string> attributes() const { return {}; }
    // Events the source saw since the last call (NVML Xid events): the sampler takes them after
    // each sample and they go to /events in the trace.
    virtual std::vector<Event> take_events() { return {}; }
};

// The host, two sources per GPU that NVML reports (its state and its health; none when NVML does
// not load), one per RDMA port under `infiniband_sysfs_root` (config telemetry.infiniband_sysfs_root;
// none when absent), the PCIe AER counters (telemetry/pcie_aer_telemetry.hpp; none without devices)
// and the NVMe drives' health logs (telemetry/nvme_health_telemetry.hpp; none without a controller).
// Without `passive_health` neither the GPU health sources nor AER nor NVMe (to measure what they cost).
std::vector<std::unique_ptr<TelemetrySource>> default_telemetry_sources(
    const std::filesystem::path& infiniband_sysfs_root = "/sys/class/infiniband", bool passive_health = true);

}  // namespace shakedown
