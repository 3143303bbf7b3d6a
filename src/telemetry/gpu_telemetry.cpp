#include "telemetry/gpu_telemetry.hpp"
#include "telemetry/telemetry_source.hpp"

#include "core/clock.hpp"
#include "telemetry/telemetry_columns.hpp"

#include <fmt/format.h>

#include <limits>

namespace shakedown {
namespace {


template <typename T>
double value_or_nan(const std::optional<T>& value) {
    return value ? static_cast<double>(*value) : not_available;
}

double flag(const std::optional<std::uint64_t>& reasons, std::uint64_t bits) {
    return reasons ? ((*reasons & bits) != 0 ? 1.0 : 0.0) : not_available;
}

}  // namespace

GpuTelemetry::GpuTelemetry(std::shared_ptr<const Nvml> nvml, NvmlDevice device)
    : nvml_(std::move(nvml)), device_(device) {}

std::string GpuTelemetry::device() const { return telemetry_columns::gpu_table(device_.index()); }

std::vector<SampleTable::Column> GpuTelemetry::columns() const { return telemetry_columns::gpu::columns(); }

std::vector<double> GpuTelemetry::sample() {
    namespace reason = nvml_abi::clocks_event_reason;
    const double t = now_utc();
    const auto reasons = device_.clocks_event_reasons();
    const auto utilization = device_.utilization();
    const auto memory = device_.memory();
    // Volatile counters: live since the driver loaded, so increments within a test are exact.
    return {t,
            value_or_nan(device_.temperature_c()),
            value_or_nan(device_.power_w()),
            value_or_nan(device_.power_limit_w()),
            value_or_nan(device_.clock_mhz(nvml_abi::clock_sm)),
            value_or_nan(device_.clock_mhz(nvml_abi::clock_mem)),
            value_or_nan(reasons),
            flag(reasons, reason::sw_power_cap),
            flag(reasons, reason::sw_thermal_slowdown | reason::hw_thermal_slowdown),
            flag(reasons, reason::hw_slowdown),
            flag(reasons, reason::hw_power_brake_slowdown),
            value_or_nan(device_.ecc_errors(nvml_abi::memory_error_corrected, nvml_abi::ecc_volatile)),
            value_or_nan(device_.ecc_errors(nvml_abi::memory_error_uncorrected, nvml_abi::ecc_volatile)),
            utilization ? static_cast<double>(utilization->gpu) : not_available,
            utilization ? static_cast<double>(utilization->memory) : not_available,
            memory ? static_cast<double>(memory->used) : not_available,
            value_or_nan(device_.total_energy_j())};
}

std::map<std::string, std::string> GpuTelemetry::attributes() const {
    std::map<std::string, std::string> facts{{"nvml_index", std::to_string(device_.index())}};
    if (auto name = device_.name()) facts["name"] = *name;
    if (auto uuid = device_.uuid()) facts[std::string(telemetry_columns::gpu_uuid_attribute)] = *uuid;
    if (auto pci = device_.pci_info()) facts["pci_bus_id"] = pci->bus_id;
    return facts;
}

}  // namespace shakedown
