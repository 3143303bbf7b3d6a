// Per-window statistics of a burn-in target's telemetry (the rows a 10 Hz sampler collected
// during the window): clock median and minimum, hottest temperature, median power, the share
// of samples each throttle reason was active, and ECC counter increments. Columns a source
// lacks (the host has no throttle bits or ECC counters) give NaN, and NaN samples (a counter
// that could not be read once) are left out.
#pragma once

#include "core/result.hpp"

#include <string>
#include <vector>

namespace shakedown::health {

// Which telemetry column plays which role, by the source's column names.
struct TelemetryRoles {
    std::string clock;        // MHz
    std::string temperature;  // C
    std::string power;        // W, empty when the source has none
    std::vector<std::string> throttle_flags;  // 0/1 columns, reported in this order
    std::vector<std::string> ecc_totals;      // running totals: the increment is last - first
};

TelemetryRoles gpu_telemetry_roles();   // GpuTelemetry's columns
TelemetryRoles host_telemetry_roles();  // HostTelemetry's columns

struct WindowTelemetry {
    std::size_t samples = 0;
    double clock_median_mhz = 0.0;
    double clock_min_mhz = 0.0;
    double temperature_max_c = 0.0;
    double power_median_w = 0.0;
    std::vector<double> throttle_share;  // fraction of samples with the flag set, per roles.throttle_flags
    std::vector<double> ecc_increment;   // per roles.ecc_totals, within the window
    std::vector<double> ecc_first;       // first and last readings: increments across
    std::vector<double> ecc_last;        // windows are last(final) - first(first)
};

WindowTelemetry summarize_window(const SampleTable& table, const TelemetryRoles& roles);


}  // namespace shakedown::health
