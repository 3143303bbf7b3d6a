#include "kernels/ladder/ladder_precisions.hpp"

#include "core/errors.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace shakedown::kernels {

const LadderRung& rung(LadderPrecision precision) {
    return *std::find_if(ladder_rungs.begin(), ladder_rungs.end(), [&](const auto& r) { return r.id == precision; });
}

std::vector<LadderPrecision> parse_precisions(std::string_view list) {
    std::vector<bool> wanted(ladder_rungs.size(), false);
    std::size_t start = 0;
    while (start <= list.size()) {
        const std::size_t comma = std::min(list.find(',', start), list.size());
        std::string_view name = list.substr(start, comma - start);
        while (!name.empty() && name.front() == ' ') name.remove_prefix(1);
        while (!name.empty() && name.back() == ' ') name.remove_suffix(1);
        if (!name.empty()) {
            const auto found = std::find_if(ladder_rungs.begin(), ladder_rungs.end(), [&](const auto& r) { return r.name == name; });
            if (found == ladder_rungs.end())
                throw InputError(fmt::format("gemm_ladder: unknown precision '{}' (known: fp64, fp32, tf32, bf16, fp16, fp8)", name));
            wanted[static_cast<std::size_t>(found - ladder_rungs.begin())] = true;
        }
        start = comma + 1;
    }
    std::vector<LadderPrecision> out;
    for (std::size_t i = 0; i < ladder_rungs.size(); ++i)
        if (wanted[i]) out.push_back(ladder_rungs[i].id);
    if (out.empty()) throw InputError("gemm_ladder: 'precisions' names no precision");
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
