// The cuBLASLt FP8 (e4m3 x e4m3, TN, compute 32F, scale 32F) set-ups the ladder tries, in order,
// and how the tries are reported.
// Each scale has its own allocation (cudaMalloc: 256-byte aligned): with B's scale 4 bytes into
// A's scale allocation cuBLASLt 13.1 refused every scaled set-up (cublasLtMatmul:
// CUBLAS_STATUS_NOT_SUPPORTED, after the heuristic, which never sees pointers, had offered
// algorithms) while every unscaled one ran and validated (D bf16, C nullptr: 1484 TFLOP/s), and
// B's scale at +16 or +256 bytes or in its own allocation ran (H200, bench/gpu/gemm_probe fp8).
// The scaled set-ups come first (a real FP8 workload scales its inputs); when none runs the
// ladder falls back to the same set-ups without scale pointers (scale 1), and the trace's
// fp8_setup says which ran.
// Within a set-up every algorithm that runs is a candidate for the autotune (ladder_autotune.hpp).
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
    bool scaled;            // A/B scale pointers set (fp8_scale_a, fp8_scale_b), each in its own allocation
};

inline constexpr std::size_t fp8_max_workspace_bytes = std::size_t{64} << 20;

// Scales of the scaled set-ups: powers of two, so the scaled product is exact in FP64 and a
// library that ignored them would miss the expected values by 8x (validation catches it).
inline constexpr float fp8_scale_a = 0.5f;
inline constexpr float fp8_scale_b = 0.25f;

inline constexpr std::array<Fp8Setup, 6> fp8_setups{{
    // torch._scaled_mm's call (bf16 out, no C, scales set, fast accumulation off).
    {"D bf16, C nullptr (beta 0), A/B scales 0.5/0.25, workspace 64 MiB", Fp8Output::bf16, false, fp8_max_workspace_bytes, true},
    {"D bf16, C = D (in place), A/B scales 0.5/0.25, workspace 64 MiB", Fp8Output::bf16, true, fp8_max_workspace_bytes, true},
    {"D fp32, C nullptr (beta 0), A/B scales 0.5/0.25, workspace 64 MiB", Fp8Output::fp32, false, fp8_max_workspace_bytes, true},
    // Without scale pointers (scale 1): what ran on the H200 with cuBLASLt 13.1.
    {"D bf16, C nullptr (beta 0), no scale pointers, workspace 64 MiB", Fp8Output::bf16, false, fp8_max_workspace_bytes, false},
    {"D bf16, C = D (in place), no scale pointers, workspace 64 MiB", Fp8Output::bf16, true, fp8_max_workspace_bytes, false},
    {"D fp32, C nullptr (beta 0), no scale pointers, workspace 64 MiB", Fp8Output::fp32, false, fp8_max_workspace_bytes, false},
}};

// The factor the product of a set-up carries: the validation's expected value is this times A^T B.
inline double fp8_product_scale(const Fp8Setup& setup) {
    return setup.scaled ? static_cast<double>(fp8_scale_a) * static_cast<double>(fp8_scale_b) : 1.0;
}

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
