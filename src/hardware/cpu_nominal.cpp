#include "hardware/cpu_nominal.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>

namespace shakedown::hardware {
namespace {

bool has_flag(const nlohmann::json& flags, const char* flag) {
    if (!flags.is_array()) return false;
    return std::any_of(flags.begin(), flags.end(), [&](const auto& entry) { return entry.is_string() && entry == flag; });
}

}  // namespace

int fp64_flops_per_cycle(const nlohmann::json& flags, const std::string& model, std::string& extension) {
    const bool fma = has_flag(flags, "fma");
    // AMD Zen 4 accepts AVX-512 but runs it on two 256-bit FMA pipes (16 FLOP/cycle); Zen 5,
    // the first AMD core with full 512-bit pipes, is told apart by avx512_vp2intersect.
    const bool amd = model.find("AMD") != std::string::npos;
    if (amd && has_flag(flags, "avx512f") && fma && !has_flag(flags, "avx512_vp2intersect"))
        return extension = "avx512f+fma on 256-bit pipes (AMD Zen 4)", 16;
    // Intel parts with a single 512-bit FMA unit (some Xeon Silver/Bronze) reach half of this;
    // flags cannot show it: override with the test's nominal parameter there.
    if (has_flag(flags, "avx512f") && fma) return extension = "avx512f+fma", 32;  // 8 lanes x 2 (FMA) x 2 units
    if (has_flag(flags, "avx2") && fma) return extension = "avx2+fma", 16;       // 4 lanes x 2 (FMA) x 2 units
    if (has_flag(flags, "avx")) return extension = "avx", 8;                     // 4-lane add + 4-lane multiply
    if (has_flag(flags, "sse2")) return extension = "sse2", 4;                   // 2-lane add + 2-lane multiply
    extension = "none";
    return 0;
}

CpuNominal derive_cpu_nominal(const nlohmann::json& inventory) {
    CpuNominal nominal;
    const auto cpu = inventory.contains("cpu") ? inventory["cpu"] : nlohmann::json::object();
    nominal.cores = cpu.value("cores", 0);
    nominal.max_mhz = cpu.value("max_mhz", 0.0);
    nominal.flops_per_cycle = fp64_flops_per_cycle(cpu.value("flags", nlohmann::json::array()),
                                                   cpu.value("model", std::string()), nominal.vector_extension);
    if (nominal.cores > 0 && nominal.max_mhz > 0 && nominal.flops_per_cycle > 0) {
        nominal.node_gflops = nominal.cores * nominal.max_mhz * 1e-3 * nominal.flops_per_cycle;
        nominal.explanation = fmt::format("derived: {} cores x {} MHz x {} FP64 FLOP/cycle ({})", nominal.cores,
                                          nominal.max_mhz, nominal.flops_per_cycle, nominal.vector_extension);
    } else {
        nominal.explanation = fmt::format("unknown: inventory gives {} cores, {} MHz, vector extension {}", nominal.cores,
                                          nominal.max_mhz, nominal.vector_extension);
    }
    return nominal;
}

}  // namespace shakedown::hardware
