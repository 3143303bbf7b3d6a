// The GEMM ladder's rungs as data: each precision's name, the spec-table key of its
// nominal, and the tolerance its validation admits. The CUDA types of each rung live
// beside the cuBLASLt call (kernels/ladder/gemm_ladder_cuda.cpp).
//
// Tolerances bound |C_gpu - C_ref| / sum_k |a_ik b_kj| for a sampled entry, where C_ref is
// the FP64 (compensated) product of the inputs as the GPU sees them (already rounded to
// the input type on the host): worst-case accumulation error k * u_acc (2x for safety),
// plus the rounding of the result to the output type, plus TF32's input rounding.
//
// The emulated rungs (cuBLAS 13 fixed-point FP64 on the integer tensor cores, BF16x9 FP32) are
// also judged against the native rung's product of the same inputs, over the whole matrix:
// max |C_emul - C_native| / max |C_native| <= emulation_tolerance (its comment says why).
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace shakedown::kernels {

// The values are the samples' `precision` column and precision_ids: new rungs are appended.
enum class LadderPrecision { fp64, fp32, tf32, bf16, fp16, fp8, fp64_emulated, fp32_emulated };

struct LadderRung {
    LadderPrecision id;
    std::string_view name;          // also the metric name: gemm_ladder.<name>_tflops
    std::string_view nominal_key;   // key in the spec table's tflops; empty: no datasheet figure
    std::string_view what;          // for the parameters: types and compute mode
    LadderPrecision native;         // the emulated rungs: the rung they are checked against; else itself
};

// Ladder order: each emulated rung right after the native one it is compared with.
inline constexpr std::array<LadderRung, 8> ladder_rungs{{
    {LadderPrecision::fp64, "fp64", "fp64_tensor", "A/B/C fp64, compute 64F", LadderPrecision::fp64},
    {LadderPrecision::fp64_emulated, "fp64_emulated", "",
     "A/B/C fp64, compute 64F_EMULATED_FIXEDPOINT (int8 tensor cores), strategy EAGER", LadderPrecision::fp64},
    {LadderPrecision::fp32, "fp32", "fp32", "A/B/C fp32, compute 32F_PEDANTIC (no TF32)", LadderPrecision::fp32},
    {LadderPrecision::fp32_emulated, "fp32_emulated", "", "A/B/C fp32, compute 32F_EMULATED_16BFX9 (BF16x9), strategy EAGER",
     LadderPrecision::fp32},
    {LadderPrecision::tf32, "tf32", "tf32", "A/B/C fp32, compute 32F_FAST_TF32", LadderPrecision::tf32},
    {LadderPrecision::bf16, "bf16", "bf16", "A/B/C bf16, compute 32F", LadderPrecision::bf16},
    {LadderPrecision::fp16, "fp16", "fp16", "A/B/C fp16, compute 32F", LadderPrecision::fp16},
    {LadderPrecision::fp8, "fp8", "fp8", "A/B fp8 e4m3, C bf16 (fp32 where only that runs: fp8_setup), compute 32F, TN layout",
     LadderPrecision::fp8},
}};

const LadderRung& rung(LadderPrecision precision);
inline bool is_emulated(LadderPrecision precision) { return rung(precision).native != precision; }

// Rung names (the declared parameter `precisions`: known names only) -> rungs in ladder order.
std::vector<LadderPrecision> in_ladder_order(const std::vector<std::string>& names);

// Mantissa bits of the precision a rung's result is held to: 53 for fp64 and fp64_emulated under
// cuBLAS' dynamic mantissa control (it retains what FP64 accuracy needs), min(53, bits) under a
// fixed count (the parameter fp64_emulation_mantissa_bits); the native precision's bits for the
// others (fp32_emulated: 24).
int effective_mantissa_bits(LadderPrecision precision, std::optional<int> fixed_bits = std::nullopt);

// Admitted |error| / sum_k |a b| for inner dimension k (the emulated rungs: as their native rung;
// fp64_emulated with a fixed count of b bits 16 x 2^-b more).
double ladder_tolerance(LadderPrecision precision, std::size_t k, std::optional<int> fixed_bits = std::nullopt);

// Admitted max |C_emul - C_native| / max |C_native| for an emulated rung, inner dimension k:
// 16 sqrt(k) 2^-p (p = 53 for fp64_emulated, 24 for fp32_emulated), plus 2^-b for
// fp64_emulated with a fixed count of b bits. Why: for the ladder's inputs (uniform [-1, 1),
// random signs) each floating-point product's rounding error grows like u sqrt(k) times |C|'s
// typical size while max |C| is about 5 of those (n^2 entries), so two correct products differ by
// about 1 u sqrt(k) (H200, dynamic control: 5.1e-15 at 4096^3, 7.4e-15 at 8192^3, 0.6-0.7 u sqrt(k));
// fixed-point quantization to b bits of each row's largest entry costs about 0.03-0.05 x 2^-b of
// max |C| whatever k (H200 at 8192^3: 8 bits 1.2e-4, 40 bits 4.1e-14). The factors leave 20-30x
// over those figures (a kernel that sums less favourably, other sizes), while one precision step
// short (BF16x9 with fewer bf16 terms, 8 retained bits fewer) lands about 10x over the bound.
double emulation_tolerance(LadderPrecision precision, std::size_t k, std::optional<int> fixed_bits = std::nullopt);

// The whole-matrix comparison of an emulated rung with its native rung, judged.
struct EmulationVerdict {
    double ratio = 0.0;       // max |C_emul - C_native| / max |C_native|
    bool identical = false;   // bit-identical everywhere: the emulation was not in effect (not a pass)
    std::string failure;      // empty when within tolerance; else names the figure and the bound
};
EmulationVerdict judge_emulation(double max_abs_difference, double max_abs_native, double tolerance);

}  // namespace shakedown::kernels
