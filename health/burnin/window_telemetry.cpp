#include "health/burnin/window_telemetry.hpp"

#include "stats/summary.hpp"
#include "telemetry/telemetry_columns.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace shakedown::health {
namespace {

constexpr double nan = std::numeric_limits<double>::quiet_NaN();

std::vector<double> finite_column(const SampleTable& table, const std::string& name) {
    std::vector<double> values;
    if (name.empty()) return values;
    for (double value : table.column(name))
        if (std::isfinite(value)) values.push_back(value);
    return values;
}

}  // namespace

TelemetryRoles gpu_telemetry_roles() {
    namespace gpu = telemetry_columns::gpu;
    const auto text = [](std::string_view column) { return std::string(column); };
    return {text(gpu::sm_clock_mhz), text(gpu::temperature_c), text(gpu::power_w),
            {text(gpu::power_capped), text(gpu::thermal), text(gpu::hw_slowdown), text(gpu::hw_power_brake)},
            {text(gpu::ecc_corrected_total), text(gpu::ecc_uncorrected_total)}};
}

TelemetryRoles host_telemetry_roles() {
    namespace host = telemetry_columns::host;
    return {std::string(host::cpu_mhz_mean), std::string(host::max_thermal_c), "", {}, {}};
}

WindowTelemetry summarize_window(const SampleTable& table, const TelemetryRoles& roles) {
    WindowTelemetry window;
    window.samples = table.size();
    const auto clocks = finite_column(table, roles.clock);
    window.clock_median_mhz = stats::median(clocks);
    window.clock_min_mhz = clocks.empty() ? nan : *std::min_element(clocks.begin(), clocks.end());
    const auto temperatures = finite_column(table, roles.temperature);
    window.temperature_max_c = temperatures.empty() ? nan : *std::max_element(temperatures.begin(), temperatures.end());
    window.power_median_w = stats::median(finite_column(table, roles.power));
    for (const auto& flag : roles.throttle_flags) {
        const auto values = finite_column(table, flag);
        const auto set = std::count_if(values.begin(), values.end(), [](double v) { return v != 0.0; });
        window.throttle_share.push_back(values.empty() ? nan : static_cast<double>(set) / values.size());
    }
    for (const auto& total : roles.ecc_totals) {
        const auto values = finite_column(table, total);
        window.ecc_first.push_back(values.empty() ? nan : values.front());
        window.ecc_last.push_back(values.empty() ? nan : values.back());
        window.ecc_increment.push_back(values.empty() ? nan : values.back() - values.front());
    }
    return window;
}

}  // namespace shakedown::health
