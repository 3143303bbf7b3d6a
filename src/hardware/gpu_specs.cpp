#include "hardware/gpu_specs.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <stdexcept>

namespace shakedown::hardware {
namespace {

// FP32 and FP64 FMA lanes per SM and clock by compute capability (CUDA programming guide,
// "arithmetic instructions" throughput table); the tensor-core rates are not derivable
// this simply, so a derived nominal leaves them out.
struct SmRates {
    int fp32_fma = 0;
    int fp64_fma = 0;
};
SmRates sm_rates(int major, int minor) {
    if (major == 8 && minor == 0) return {64, 32};   // A100
    if (major == 9 && minor == 0) return {128, 64};  // H100/H200
    if (major == 6 && minor == 0) return {64, 32};   // P100
    if (major == 7 && minor == 0) return {64, 32};   // V100
    if (major >= 10 && minor == 0) return {128, 64}; // datacenter Blackwell
    return {128, 2};                                 // consumer/workstation parts: FP64 at 1/64
}

}  // namespace

std::optional<double> GpuNominal::tflops_for(std::string_view precision) const {
    const auto found = tflops.find(std::string(precision));
    if (found == tflops.end()) return std::nullopt;
    return found->second;
}

GpuNominal derive_gpu_nominal(const gpu::GpuFacts& facts) {
    GpuNominal nominal;
    nominal.part = facts.name;
    nominal.derived = true;
    nominal.source = fmt::format(
        "derived: {} SMs x {} MHz x FMA lanes of compute capability {}.{}; memory {} MHz x 2 (DDR) x {} bits",
        facts.sm_count, facts.max_sm_clock_mhz, facts.compute_major, facts.compute_minor, facts.memory_clock_mhz,
        facts.memory_bus_width_bits);
    const SmRates rates = sm_rates(facts.compute_major, facts.compute_minor);
    const double sm_ghz = facts.sm_count * facts.max_sm_clock_mhz * 1e-3;
    if (sm_ghz > 0) {
        nominal.tflops["fp32"] = sm_ghz * rates.fp32_fma * 2 * 1e-3;
        nominal.tflops["fp64"] = sm_ghz * rates.fp64_fma * 2 * 1e-3;
    }
    if (facts.memory_clock_mhz > 0 && facts.memory_bus_width_bits > 0)
        nominal.memory_gbs = facts.memory_clock_mhz * 1e6 * 2.0 * facts.memory_bus_width_bits / 8.0 * 1e-9;
    return nominal;
}

GpuNominal gpu_nominal(const gpu::GpuFacts& facts, std::string_view table_yaml) {
    const YAML::Node table = YAML::Load(std::string(table_yaml));
    if (const auto found = matching_gpu_entry(table, facts.name)) {
        const YAML::Node& entry = *found;
        GpuNominal nominal;
        nominal.part = entry["part"].as<std::string>();
        nominal.source = entry["source"].as<std::string>();
        for (const auto& precision : entry["tflops"])
            nominal.tflops[precision.first.as<std::string>()] = precision.second.as<double>();
        if (entry["memory_gbs"]) nominal.memory_gbs = entry["memory_gbs"].as<double>();
        // Parts without FP64 tensor cores run DGEMM on the CUDA cores.
        if (!nominal.tflops.contains("fp64_tensor") && nominal.tflops.contains("fp64"))
            nominal.tflops["fp64_tensor"] = nominal.tflops["fp64"];
        return nominal;
    }
    return derive_gpu_nominal(facts);
}

}  // namespace shakedown::hardware
