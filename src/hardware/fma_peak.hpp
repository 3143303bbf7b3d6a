// A short FP64 FMA peak microkernel on the calling thread's core: independent FMA chains in the
// widest vector width the CPU offers (AVX-512, AVX2+FMA, else SSE2 multiply-add), long enough to
// cover the units' latency. Its rate is what one core really does (the clock it runs at x the
// vector width x its FMA units); beside the derived nominal it shows a nominal that cannot be
// right (a boost clock the VM hides, a pipe count the flags cannot tell).
#pragma once

#include <string>

namespace shakedown::hardware {

struct FmaPeak {
    double gflops = 0.0;        // one core, FP64
    std::string instructions;   // "avx512f", "avx2+fma", "sse2"
    int flops_per_instruction = 0;  // FP64 FLOPs of one vector FMA (lanes x 2)
};

// Runs for about `seconds` (at least a few milliseconds).
FmaPeak measure_fma_peak(double seconds);

}  // namespace shakedown::hardware
