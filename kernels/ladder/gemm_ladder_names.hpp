// The names of `gemm_ladder`'s figures another layer reads, declared once: its declaration
// (gemm_ladder_spec.cpp, which makes every rung's names from the rung table) and the analyzer read
// these constants.
#pragma once

#include <string_view>

namespace shakedown::kernels::gemm_ladder_names {

inline constexpr std::string_view key = "gemm_ladder";

inline constexpr std::string_view bf16_tflops = "gemm_ladder.bf16_tflops";  // the median repetition
inline constexpr std::string_view fp64_tflops = "gemm_ladder.fp64_tflops";
// FP64 emulated with fixed-point slices, and its largest relative error against native FP64.
inline constexpr std::string_view fp64_emulated_tflops = "gemm_ladder.fp64_emulated_tflops";
inline constexpr std::string_view fp64_emulated_max_rel_error_vs_native =
    "gemm_ladder.fp64_emulated_max_rel_error_vs_native";

}  // namespace shakedown::kernels::gemm_ladder_names
