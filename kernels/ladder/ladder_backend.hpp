// One rung of the GEMM ladder on the bound GPU: random inputs rounded to the rung's type, an
// autotune over cublasGemmEx (TN) and cuBLASLt's top heuristic algorithms for TN and NN (fp8:
// TN only, which Hopper requires; ladder_autotune.hpp says why), a cool-down, warm-up, timed
// repetitions with the fastest, then sampled entries checked against an FP64 host reference.
// The emulated rungs run cublasGemmEx alone (strategy EAGER on the handle), then the native
// rung's cublasGemmEx on the same inputs (a second handle), and compare the whole matrices.
#pragma once

#include <stdexcept>

#include "kernels/ladder/ladder_autotune.hpp"
#include "kernels/ladder/ladder_precisions.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace shakedown::kernels {

struct LadderRunOptions {
    std::size_t n = 8192;        // m = n = k
    std::int64_t warmup = 2;
    std::int64_t repetitions = 10;
    std::size_t samples = 256;   // entries of C validated
    bool corrupt = false;        // planted: overwrite one sampled entry of C before validation
    AutotuneLimits autotune;
    // Idle after the autotune, so the timed repetitions start from a GPU below its power cap
    // as they did before tuning existed (the reference figures are such bursts, too).
    double cooldown_s = 2.0;
    bool fp8_fast_accumulation = false;  // CUBLASLT_MATMUL_DESC_FAST_ACCUM: off keeps FP32 promotion
    // fp64_emulated: a fixed count of retained mantissa bits; nothing: cuBLAS' dynamic control.
    std::optional<int> fp64_emulation_mantissa_bits;
};

struct LadderRunResult {
    std::vector<double> seconds;  // per timed repetition
    std::string failure;          // empty when every sampled entry is within tolerance
    double worst_error = 0.0;     // worst |error| / (tolerance * sum|ab|) over the samples
    // What ran, for the trace as "<rung>_<key>": the algorithm and layout, the autotune's
    // choice, fp8's cuBLASLt set-up and what the library refused before it.
    std::vector<std::pair<std::string, std::string>> details;
    // Emulated rungs: max |C_emul - C_native| / max |C_native| over the whole matrix, and the
    // bound it was judged against (a breach is in `failure`).
    std::optional<double> max_rel_error_vs_native;
    double tolerance_vs_native = 0.0;
};

// Throws std::runtime_error (CUDA/cuBLAS failure, or no CUDA in this build).
// The GPU's library has no kernel for this rung (cuBLASLt answering NOT_SUPPORTED; an emulated
// rung with a cuBLAS too old, refusing the emulation, or running natively instead): the rung
// is reported as not measured, with the library's words, rather than as a wrong answer.
class RungNotSupported : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

LadderRunResult run_ladder_rung(LadderPrecision precision, const LadderRunOptions& options, int device);

}  // namespace shakedown::kernels
