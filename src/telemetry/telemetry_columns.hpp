// The columns of the GPU and host telemetry tables, declared once for the sources that write
// them, the burn-in that summarizes them, the analyzer that explains findings with them and
// the synthetic run that imitates them (header-only: the analyzer does not link the sampler).
// Column 0 of every table is the time `t`, seconds since the Unix epoch.
#pragma once

#include "core/result.hpp"

#include <string_view>
#include <vector>

namespace shakedown::telemetry_columns {

inline constexpr std::string_view time = "t";

// One GPU through NVML. Throttle reasons: the raw bitmask, and one 0/1 column per reason the
// analyzer explains shortfalls with. ECC totals are volatile counts since the driver loaded.
namespace gpu {
inline constexpr std::string_view temperature_c = "temperature_c";
inline constexpr std::string_view power_w = "power_w";
inline constexpr std::string_view power_limit_w = "power_limit_w";
inline constexpr std::string_view sm_clock_mhz = "sm_clock_mhz";
inline constexpr std::string_view mem_clock_mhz = "mem_clock_mhz";
inline constexpr std::string_view throttle_reasons = "throttle_reasons";
inline constexpr std::string_view power_capped = "power_capped";
inline constexpr std::string_view thermal = "thermal";
inline constexpr std::string_view hw_slowdown = "hw_slowdown";
inline constexpr std::string_view hw_power_brake = "hw_power_brake";
inline constexpr std::string_view ecc_corrected_total = "ecc_corrected_total";
inline constexpr std::string_view ecc_uncorrected_total = "ecc_uncorrected_total";
inline constexpr std::string_view util_gpu_pct = "util_gpu_pct";
inline constexpr std::string_view util_mem_pct = "util_mem_pct";
inline constexpr std::string_view mem_used_bytes = "mem_used_bytes";
// NVML's energy counter since the driver loaded (NaN where the GPU has none): a window's energy
// is its rise, where power_w is one reading averaged over the driver's own period.
inline constexpr std::string_view energy_j = "energy_j";

inline std::vector<SampleTable::Column> columns() {
    return {{std::string(time), "s"},
            {std::string(temperature_c), "C"},
            {std::string(power_w), "W"},
            {std::string(power_limit_w), "W"},
            {std::string(sm_clock_mhz), "MHz"},
            {std::string(mem_clock_mhz), "MHz"},
            {std::string(throttle_reasons), "bitmask"},
            {std::string(power_capped), "bool"},
            {std::string(thermal), "bool"},
            {std::string(hw_slowdown), "bool"},
            {std::string(hw_power_brake), "bool"},
            {std::string(ecc_corrected_total), "count"},
            {std::string(ecc_uncorrected_total), "count"},
            {std::string(util_gpu_pct), "%"},
            {std::string(util_mem_pct), "%"},
            {std::string(mem_used_bytes), "B"},
            {std::string(energy_j), "J"}};
}
}  // namespace gpu

// One GPU's passive health through NVML (telemetry/gpu_health_telemetry.hpp), table
// "health_gpu<NVML index>". Counters are read every second (rows between repeat the reading,
// counters_t says when it was taken); Xid events are polled at every sample. NaN: not available,
// and the table's attribute "not_available.<column>" says why (a missing symbol, or the NVML
// return code), so a counter that cannot be read is never a zero.
namespace gpu_health {
inline constexpr std::string_view counters_time = "counters_t";
inline constexpr std::string_view ecc_sbe_volatile = "ecc_sbe_volatile";
inline constexpr std::string_view ecc_dbe_volatile = "ecc_dbe_volatile";
inline constexpr std::string_view ecc_sbe_aggregate = "ecc_sbe_aggregate";
inline constexpr std::string_view ecc_dbe_aggregate = "ecc_dbe_aggregate";
inline constexpr std::string_view retired_pages_sbe = "retired_pages_sbe";
inline constexpr std::string_view retired_pages_dbe = "retired_pages_dbe";
inline constexpr std::string_view retired_pages_pending = "retired_pages_pending";
inline constexpr std::string_view remap_corrected = "remap_corrected";
inline constexpr std::string_view remap_uncorrected = "remap_uncorrected";
inline constexpr std::string_view remap_pending = "remap_pending";
inline constexpr std::string_view remap_failure = "remap_failure";
// The row remapper's bank histogram: memory banks by spare rows left (all, high, partial, low,
// none). A bank at "none" cannot remap another failing row.
inline constexpr std::string_view remap_bank_max = "remap_bank_max";
inline constexpr std::string_view remap_bank_high = "remap_bank_high";
inline constexpr std::string_view remap_bank_partial = "remap_bank_partial";
inline constexpr std::string_view remap_bank_low = "remap_bank_low";
inline constexpr std::string_view remap_bank_none = "remap_bank_none";
inline constexpr std::string_view pcie_replay = "pcie_replay";
inline constexpr std::string_view nvlink_links = "nvlink_links";        // links NVML answers for
inline constexpr std::string_view nvlink_links_up = "nvlink_links_up";  // of those, active
inline constexpr std::string_view nvlink_down_mask = "nvlink_down_mask";  // bit l: link l answered, inactive
inline constexpr std::string_view nvlink_replay = "nvlink_replay";      // summed over links
inline constexpr std::string_view nvlink_recovery = "nvlink_recovery";
inline constexpr std::string_view nvlink_crc = "nvlink_crc";            // CRC flit + CRC data
inline constexpr std::string_view fabric_state = "fabric_state";        // NVML_GPU_FABRIC_STATE_*: 3 completed
inline constexpr std::string_view fabric_status = "fabric_status";      // nvmlReturn_t, once completed
inline constexpr std::string_view xid_count = "xid_count";              // Xid events seen since sampling began
inline constexpr std::string_view xid_last = "xid_last";                // the last one's Xid number

inline std::vector<SampleTable::Column> columns() {
    return {{std::string(time), "s"},
            {std::string(counters_time), "s"},
            {std::string(ecc_sbe_volatile), "count"},
            {std::string(ecc_dbe_volatile), "count"},
            {std::string(ecc_sbe_aggregate), "count"},
            {std::string(ecc_dbe_aggregate), "count"},
            {std::string(retired_pages_sbe), "pages"},
            {std::string(retired_pages_dbe), "pages"},
            {std::string(retired_pages_pending), "bool"},
            {std::string(remap_corrected), "rows"},
            {std::string(remap_uncorrected), "rows"},
            {std::string(remap_pending), "bool"},
            {std::string(remap_failure), "bool"},
            {std::string(pcie_replay), "count"},
            {std::string(nvlink_links), "links"},
            {std::string(nvlink_links_up), "links"},
            {std::string(nvlink_down_mask), "bitmask"},
            {std::string(nvlink_replay), "count"},
            {std::string(nvlink_recovery), "count"},
            {std::string(nvlink_crc), "count"},
            {std::string(fabric_state), "1"},
            {std::string(fabric_status), "1"},
            {std::string(remap_bank_max), "banks"},
            {std::string(remap_bank_high), "banks"},
            {std::string(remap_bank_partial), "banks"},
            {std::string(remap_bank_low), "banks"},
            {std::string(remap_bank_none), "banks"},
            {std::string(xid_count), "count"},  // the Xid columns stay last (GpuHealthTelemetry::sample)
            {std::string(xid_last), "1"}};
}

// Attribute names of a health table: the GPU (not "uuid": that names the GPU's own table) and,
// per column that could not be read, why.
inline constexpr std::string_view gpu_uuid_attribute = "gpu_uuid";
// The GPU's name as NVML gives it ("NVIDIA H200"): what the spec table's expected NVLink count matches.
inline constexpr std::string_view gpu_name_attribute = "gpu_name";
inline constexpr std::string_view not_available_prefix = "not_available.";
// Trace events of an Xid: "nvml_xid health_gpu0 GPU-... xid=79" (severity error).
inline constexpr std::string_view xid_event_prefix = "nvml_xid ";
}  // namespace gpu_health

// The host through /proc and /sys.
namespace host {
inline constexpr std::string_view loadavg_1m = "loadavg_1m";
inline constexpr std::string_view cpu_mhz_mean = "cpu_mhz_mean";
inline constexpr std::string_view max_thermal_c = "max_thermal_c";
inline constexpr std::string_view mem_available_bytes = "mem_available_bytes";
// The CPU packages' energy (RAPL through powercap: every intel-rapl:N package zone, summed), in
// joules since the source's first reading, each counter's wrap undone: a counter that only rises.
// NaN where the node exposes none (a VM, an unprivileged reader).
inline constexpr std::string_view package_energy_j = "package_energy_j";

inline std::vector<SampleTable::Column> columns() {
    return {
        {std::string(time), "s"},          {std::string(loadavg_1m), "1"},          {std::string(cpu_mhz_mean), "MHz"},
        {std::string(max_thermal_c), "C"}, {std::string(mem_available_bytes), "B"}, {std::string(package_energy_j), "J"}};
}
}  // namespace host

// The telemetry table names: "host", "gpu<NVML index>" (the table's "uuid" attribute names the
// GPU whatever the ranks' CUDA visibility), RDMA ports as in rdma_port_names.hpp.
inline constexpr std::string_view host_table = "host";
inline std::string gpu_table(unsigned nvml_index) { return "gpu" + std::to_string(nvml_index); }
inline constexpr std::string_view gpu_uuid_attribute = "uuid";
inline constexpr std::string_view gpu_health_table_prefix = "health_gpu";
inline std::string gpu_health_table(unsigned nvml_index) {
    return std::string(gpu_health_table_prefix) + std::to_string(nvml_index);
}

}  // namespace shakedown::telemetry_columns
