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
            {std::string(mem_used_bytes), "B"}};
}
}  // namespace gpu

// The host through /proc and /sys.
namespace host {
inline constexpr std::string_view loadavg_1m = "loadavg_1m";
inline constexpr std::string_view cpu_mhz_mean = "cpu_mhz_mean";
inline constexpr std::string_view max_thermal_c = "max_thermal_c";
inline constexpr std::string_view mem_available_bytes = "mem_available_bytes";

inline std::vector<SampleTable::Column> columns() {
    return {{std::string(time), "s"},
            {std::string(loadavg_1m), "1"},
            {std::string(cpu_mhz_mean), "MHz"},
            {std::string(max_thermal_c), "C"},
            {std::string(mem_available_bytes), "B"}};
}
}  // namespace host

// The telemetry table names: "host", "gpu<NVML index>" (the table's "uuid" attribute names the
// GPU whatever the ranks' CUDA visibility), RDMA ports as in rdma_port_names.hpp.
inline constexpr std::string_view host_table = "host";
inline std::string gpu_table(unsigned nvml_index) { return "gpu" + std::to_string(nvml_index); }
inline constexpr std::string_view gpu_uuid_attribute = "uuid";

}  // namespace shakedown::telemetry_columns
