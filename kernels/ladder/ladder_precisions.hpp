// The GEMM ladder's rungs as data: each precision's name, the spec-table key of its
// nominal, and the tolerance its validation admits. The CUDA types of each rung live
// beside the cuBLASLt call (kernels/ladder/gemm_ladder_cuda.cpp).
//
// Tolerances bound |C_gpu - C_ref| / sum_k |a_ik b_kj| for a sampled entry, where C_ref is
// the FP64 (compensated) product of the inputs as the GPU sees them (already rounded to
// the input type on the host): worst-case accumulation error k * u_acc (2x for safety),
// plus the rounding of the result to the output type, plus TF32's input rounding.
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace shakedown::kernels {

enum class LadderPrecision { fp64, fp32, tf32, bf16, fp16, fp8 };

struct LadderRung {
    LadderPrecision id;
    std::string_view name;          // also the metric name: gemm_ladder.<name>_tflops
    std::string_view nominal_key;   // key in the spec table's tflops
    std::string_view what;          // for the parameters: types and compute mode
};

inline constexpr std::array<LadderRung, 6> ladder_rungs{{
    {LadderPrecision::fp64, "fp64", "fp64_tensor", "A/B/C fp64, compute 64F"},
    {LadderPrecision::fp32, "fp32", "fp32", "A/B/C fp32, compute 32F_PEDANTIC (no TF32)"},
    {LadderPrecision::tf32, "tf32", "tf32", "A/B/C fp32, compute 32F_FAST_TF32"},
    {LadderPrecision::bf16, "bf16", "bf16", "A/B/C bf16, compute 32F"},
    {LadderPrecision::fp16, "fp16", "fp16", "A/B/C fp16, compute 32F"},
    {LadderPrecision::fp8, "fp8", "fp8", "A/B fp8 e4m3, C bf16 (fp32 where only that runs: fp8_setup), compute 32F, TN layout"},
}};

const LadderRung& rung(LadderPrecision precision);

// Rung names (the declared parameter `precisions`: known names only) -> rungs in ladder order.
std::vector<LadderPrecision> in_ladder_order(const std::vector<std::string>& names);

// Admitted |error| / sum_k |a b| for inner dimension k.
double ladder_tolerance(LadderPrecision precision, std::size_t k);

}  // namespace shakedown::kernels
