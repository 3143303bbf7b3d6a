// Nominal GPU figures: the embedded spec table (src/hardware/gpu_specs.yaml) for known
// parts, else figures derived from what the device reports, marked "derived".
#pragma once

#include "gpu/gpu_facts.hpp"
#include "hardware/gpu_spec_table.hpp"

#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace shakedown::hardware {

struct GpuNominal {
    std::string part;    // table entry, or the device's own name when derived
    std::string source;  // where the figures come from; "derived: ..." when computed
    bool derived = false;
    std::map<std::string, double> tflops;  // fp64, fp64_tensor, fp32, tf32, bf16, fp16, fp8
    std::optional<double> memory_gbs;

    std::optional<double> tflops_for(std::string_view precision) const;
};

// Looks `facts.name` up in `table_yaml`; derives when no entry matches.
GpuNominal gpu_nominal(const gpu::GpuFacts& facts, std::string_view table_yaml);
inline GpuNominal gpu_nominal(const gpu::GpuFacts& facts) { return gpu_nominal(facts, embedded_gpu_specs_yaml()); }

// Derived from SM count, clocks and the memory interface (for GPUs not in the table).
GpuNominal derive_gpu_nominal(const gpu::GpuFacts& facts);

}  // namespace shakedown::hardware
