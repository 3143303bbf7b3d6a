// Nominal FP64 peak of a CPU node, derived from the inventory: physical cores x maximum
// clock x FP64 FLOPs per cycle per core, the last taken from the vector extensions found.
// Assumed FLOPs/cycle (FMA counts 2): AVX-512 with two FMA units 32, AVX2 + FMA 16,
// AVX 8, SSE2 4. Parts with one AVX-512 FMA unit (some Xeon Silver/Bronze) reach half the
// AVX-512 figure: the nominal is then optimistic, and that shows as a low ratio, named.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include <optional>
#include <string>

namespace shakedown::hardware {

struct CpuNominal {
    std::optional<double> node_gflops;  // nothing when the inventory lacks cores or clock
    int cores = 0;
    double max_mhz = 0.0;
    int flops_per_cycle = 0;
    std::string vector_extension;  // "avx512f+fma", "avx2+fma", "avx", "sse2"
    std::string explanation;       // one line for result.parameters
};

int fp64_flops_per_cycle(const nlohmann::json& flags, const std::string& model, std::string& extension);
CpuNominal derive_cpu_nominal(const nlohmann::json& inventory);

}  // namespace shakedown::hardware
