#include "kernels/ladder/ladder_precisions.hpp"

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

double ladder_tolerance(LadderPrecision precision, std::size_t k) {
    const double accumulate64 = 2.0 * static_cast<double>(k) * std::ldexp(1.0, -53);
    const double accumulate32 = 2.0 * static_cast<double>(k) * std::ldexp(1.0, -24);
    switch (precision) {
    case LadderPrecision::fp64: return accumulate64;
    case LadderPrecision::fp32: return accumulate32;
    case LadderPrecision::tf32: return 2.0 * std::ldexp(1.0, -11) + accumulate32;  // inputs rounded to 10-bit mantissas
    case LadderPrecision::bf16: return std::ldexp(1.0, -8) + accumulate32;         // output rounded to bf16
    case LadderPrecision::fp16: return std::ldexp(1.0, -11) + accumulate32;        // output rounded to fp16
    // Hopper's FP8 tensor cores accumulate with fewer bits than FP32 (about 14 mantissa
    // bits, as reported publicly for H800); with a bf16 result, 1 % of sum |a b| is safe.
    case LadderPrecision::fp8: return 1e-2;
    }
    return 0.0;
}

}  // namespace shakedown::kernels
