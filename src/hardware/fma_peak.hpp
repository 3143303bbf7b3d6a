// A short FP64 FMA peak microkernel on the calling thread's core: independent FMA chains in the
// widest vector width the CPU offers (AVX-512, AVX2+FMA, else SSE2 multiply-add), long enough to
// cover the units' latency. Its rate is what one core really does (the clock it runs at x the
// vector width x its FMA units); beside the derived nominal it shows a nominal that cannot be
// right (a boost clock the VM hides, a pipe count the flags cannot tell).
#pragma once

#include "hardware/vector_isa.hpp"

#include <optional>
#include <string>

namespace shakedown::hardware {

struct FmaPeak {
    double gflops = 0.0;        // one core, FP64
    std::string instructions;   // "avx512f", "avx2+fma", "avx", "sse2"
    int flops_per_instruction = 0;  // FP64 FLOPs of one vector FMA (lanes x 2)
};

// Runs for about `seconds` (at least a few milliseconds) at the widest vectors the CPU offers,
// or at `at_most` where that is narrower (the width a BLAS kernel computes at).
FmaPeak measure_fma_peak(double seconds, std::optional<VectorIsa> at_most = std::nullopt);

// The same on `threads` threads at once (the cores a rank's BLAS threads run on), summed: what
// those cores deliver together, at the clock they hold while all of them work.
FmaPeak measure_fma_peak_on_threads(double seconds, std::optional<VectorIsa> at_most, int threads);

// No core computes FP64 faster than its widest FMA at two units and this clock: a measured peak
// above it is a broken timer or measurement, not a result.
inline constexpr double highest_plausible_core_ghz = 6.5;
double fma_peak_ceiling_gflops(const FmaPeak& peak);

}  // namespace shakedown::hardware
