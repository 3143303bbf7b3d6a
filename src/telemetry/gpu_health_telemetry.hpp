// One GPU's passive health through NVML: ECC single/double-bit counts (volatile and aggregate),
// retired pages (per cause, pending), row remapping (corrected, uncorrected, pending, failure,
// and the bank histogram by spare rows left),
// the PCIe replay counter, NVLink link state and error counters (replay, recovery, CRC) summed
// over the links, the fabric state and status, and Xid critical-error events. Columns:
// telemetry_columns::gpu_health; table "health_gpu<NVML index>".
//
// Every entry point is looked up by symbol when NVML loads. A missing symbol or an NVML error
// (NOT_SUPPORTED on a part without the feature) gives NaN in the column and an attribute
// "not_available.<column>" with the symbol and the return code, decided by a probe at
// construction: never a zero. Counters cost firmware queries (18 links x 4 NVLink counters), so
// they are read once per `read_period` (rows between repeat the reading; counters_t says when);
// the Xid event set is polled with a 0 ms timeout at every sample.
#pragma once

#include "telemetry/nvml.hpp"
#include "telemetry/telemetry_source.hpp"
#include "telemetry/read_period.hpp"

#include <chrono>
#include <memory>
#include <optional>

namespace shakedown {

inline constexpr std::chrono::milliseconds default_gpu_health_read_period{1000};

class GpuHealthTelemetry : public TelemetrySource {
public:
    GpuHealthTelemetry(std::shared_ptr<const Nvml> nvml, NvmlDevice device,
                       std::chrono::steady_clock::duration read_period = default_gpu_health_read_period);
    ~GpuHealthTelemetry() override;
    GpuHealthTelemetry(const GpuHealthTelemetry&) = delete;
    GpuHealthTelemetry& operator=(const GpuHealthTelemetry&) = delete;

    std::string device() const override;  // "health_gpu<NVML index>"
    std::vector<SampleTable::Column> columns() const override;
    std::vector<double> sample() override;
    std::vector<double> final_sample() override;  // reads the counters afresh
    std::map<std::string, std::string> attributes() const override;
    std::vector<Event> take_events() override;

private:
    void read_counters(double t);
    void poll_xid(double t);

    std::shared_ptr<const Nvml> nvml_;
    NvmlDevice device_;
    ReadPeriod reads_;
    std::vector<double> reading_;  // columns after t
    std::map<std::string, std::string> unavailable_;  // column -> why (from the first reading)
    bool probed_ = false;
    nvml_abi::EventSet events_ = nullptr;
    std::string uuid_;
    double xid_count_ = 0;
    double xid_last_;
    std::vector<Event> seen_;
};

}  // namespace shakedown
