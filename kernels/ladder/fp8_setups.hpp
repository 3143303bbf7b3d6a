// The cuBLASLt FP8 (e4m3 x e4m3, TN, compute 32F, scale 32F, A/B scale pointers) set-ups the
// ladder tries, in order, and how the tries are reported. On the H200 with CUDA 13.0 (2026-11-30)
// the heuristic offered an algorithm for "D bf16, C = D" that cublasLtMatmul then refused
// (CUBLAS_STATUS_NOT_SUPPORTED), while torch._scaled_mm ran 1401 TFLOP/s on the same GPU; so the
// rung no longer bets on one set-up and one algorithm: it takes the first set-up, and within it
// the first algorithm in the heuristic's order, that actually multiplies (and then validates the
// product like every rung). bench/gpu/gemm_probe.cu tries the full matrix of variants.
#pragma once

#include <array>
#include <cstddef>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

namespace shakedown::kernels {

enum class Fp8Output { bf16, fp32 };

struct Fp8Setup {
    std::string_view name;  // recorded in the trace as fp8_setup
    Fp8Output output;       // D's type (C's type too)
    bool c_is_d;            // pass D as C (in place); otherwise C = nullptr, which beta = 0 allows
    std::size_t workspace_bytes;
};

inline constexpr std::size_t fp8_max_workspace_bytes = std::size_t{64} << 20;

inline constexpr std::array<Fp8Setup, 4> fp8_setups{{
    // torch._scaled_mm's call (bf16 out, no C, scales set, fast accumulation off): runs on H200.
    {"D bf16, C nullptr (beta 0), workspace 64 MiB", Fp8Output::bf16, false, fp8_max_workspace_bytes},
    // The ladder's first set-up.
    {"D bf16, C = D (in place), workspace 64 MiB", Fp8Output::bf16, true, fp8_max_workspace_bytes},
    // A small workspace keeps the heuristic away from workspace-hungry (split-K) kernels.
    {"D bf16, C nullptr (beta 0), workspace 1 MiB", Fp8Output::bf16, false, std::size_t{1} << 20},
    {"D fp32, C nullptr (beta 0), workspace 64 MiB", Fp8Output::fp32, false, fp8_max_workspace_bytes},
}};

// One algorithm the heuristic offered for one set-up, and what cuBLASLt answered; or, with
// heuristic_index -1, the heuristic's own answer when it offered nothing.
struct Fp8Attempt {
    std::size_t setup = 0;    // index into fp8_setups
    int heuristic_index = -1;
    std::string algorithm;    // the algorithm's configuration, for the trace
    std::string status;       // a cublasStatus_t name, "no algorithm offered" or "ran"
};

// "<set-up>: 16 algorithms offered: 16 x CUBLAS_STATUS_NOT_SUPPORTED; <set-up>: heuristic ..."
// for the attempts that did not run (the library's own words, counted, per set-up in order).
inline std::string summarize_fp8_refusals(const std::vector<Fp8Attempt>& attempts) {
    std::string summary;
    for (std::size_t setup = 0; setup < fp8_setups.size(); ++setup) {
        std::map<std::string, int> statuses;
        int offered = 0;
        std::string heuristic_answer;
        for (const Fp8Attempt& attempt : attempts) {
            if (attempt.setup != setup || attempt.status == "ran") continue;
            if (attempt.heuristic_index < 0) {
                heuristic_answer = attempt.status;
                continue;
            }
            ++offered;
            ++statuses[attempt.status];
        }
        if (heuristic_answer.empty() && offered == 0) continue;
        if (!summary.empty()) summary += "; ";
        summary += fmt::format("{}: ", fp8_setups[setup].name);
        if (!heuristic_answer.empty()) {
            summary += fmt::format("heuristic: {}", heuristic_answer);
            continue;
        }
        summary += fmt::format("{} algorithm{} refused:", offered, offered == 1 ? "" : "s");
        for (const auto& [status, count] : statuses) summary += fmt::format(" {} x {}", count, status);
    }
    return summary;
}

}  // namespace shakedown::kernels
