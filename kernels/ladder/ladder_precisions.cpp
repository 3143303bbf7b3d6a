#include "kernels/ladder/ladder_precisions.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace shakedown::kernels {

const LadderRung& rung(LadderPrecision precision) {
    return *std::find_if(ladder_rungs.begin(), ladder_rungs.end(), [&](const auto& r) { return r.id == precision; });
}

std::vector<LadderPrecision> in_ladder_order(const std::vector<std::string>& names) {
    std::vector<LadderPrecision> out;
    for (const auto& rung : ladder_rungs)
        if (std::find(names.begin(), names.end(), rung.name) != names.end()) out.push_back(rung.id);
    return out;
}

int effective_mantissa_bits(LadderPrecision precision, std::optional<int> fixed_bits) {
    switch (rung(precision).native) {
    case LadderPrecision::fp64:
        return precision == LadderPrecision::fp64_emulated && fixed_bits ? std::min(53, *fixed_bits) : 53;
    case LadderPrecision::fp32: return 24;
    case LadderPrecision::tf32: return 11;
    case LadderPrecision::bf16: return 8;
    case LadderPrecision::fp16: return 11;
    case LadderPrecision::fp8: return 4;
    default: return 0;
    }
}

double ladder_tolerance(LadderPrecision precision, std::size_t k, std::optional<int> fixed_bits) {
    const double accumulate64 = 2.0 * static_cast<double>(k) * std::ldexp(1.0, -53);
    const double accumulate32 = 2.0 * static_cast<double>(k) * std::ldexp(1.0, -24);
    switch (precision) {
    case LadderPrecision::fp64: return accumulate64;
    // Fixed-point with b retained bits quantizes each entry to about 2^-b of its row's (column's)
    // largest: for the ladder's inputs (|a|, |b| < 1, sum |a b| about k/4) within 4 x 2^-b of
    // sum |a b|; 16 x 2^-b on top of FP64's bound. Dynamic control keeps FP64 accuracy.
    case LadderPrecision::fp64_emulated: return accumulate64 + (fixed_bits ? 16.0 * std::ldexp(1.0, -*fixed_bits) : 0.0);
    case LadderPrecision::fp32:
    case LadderPrecision::fp32_emulated: return accumulate32;  // BF16x9: 3 bf16 carry fp32's 24 bits, fp32 accumulation
    case LadderPrecision::tf32: return 2.0 * std::ldexp(1.0, -11) + accumulate32;  // inputs rounded to 10-bit mantissas
    case LadderPrecision::bf16: return std::ldexp(1.0, -8) + accumulate32;         // output rounded to bf16
    case LadderPrecision::fp16: return std::ldexp(1.0, -11) + accumulate32;        // output rounded to fp16
    // Hopper's FP8 tensor cores accumulate with fewer bits than FP32 (about 14 mantissa
    // bits, as reported publicly for H800); with a bf16 result, 1 % of sum |a b| is safe.
    case LadderPrecision::fp8: return 1e-2;
    }
    return 0.0;
}

double emulation_tolerance(LadderPrecision precision, std::size_t k, std::optional<int> fixed_bits) {
    const double floating = 16.0 * std::sqrt(static_cast<double>(k)) * std::ldexp(1.0, -effective_mantissa_bits(precision));
    if (precision == LadderPrecision::fp64_emulated && fixed_bits) return floating + std::ldexp(1.0, -*fixed_bits);
    return floating;
}

EmulationVerdict judge_emulation(double max_abs_difference, double max_abs_native, double tolerance) {
    EmulationVerdict verdict;
    if (!(max_abs_native > 0.0) || !std::isfinite(max_abs_native) || std::isnan(max_abs_difference)) {
        verdict.ratio = INFINITY;
        verdict.failure = fmt::format("max |C_emul - C_native| / max |C_native| not finite (max |C_native| = {:.3g}, "
                                      "max |C_emul - C_native| = {:.3g})",
                                      max_abs_native, max_abs_difference);
        return verdict;
    }
    verdict.ratio = max_abs_difference / max_abs_native;
    verdict.identical = max_abs_difference == 0.0;
    if (!(verdict.ratio <= tolerance))
        verdict.failure = fmt::format("max |C_emul - C_native| / max |C_native| = {:.3g} > tolerance {:.3g}", verdict.ratio,
                                      tolerance);
    return verdict;
}

}  // namespace shakedown::kernels
