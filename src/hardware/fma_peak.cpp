#include "hardware/fma_peak.hpp"

#include <chrono>
#include <cstdint>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace shakedown::hardware {
namespace {

using Clock = std::chrono::steady_clock;

// 16 independent chains: more than latency (4 cycles) x FMA units (2) on every current core.
constexpr int chains = 16;
constexpr std::int64_t iterations_per_check = 1 << 14;

template <typename Kernel>
double run_for(double seconds, int flops_per_call, Kernel kernel) {
    const auto start = Clock::now();
    std::int64_t calls = 0;
    double elapsed = 0.0;
    // Each call starts from the last one's result (read through a volatile): no call can be
    // folded into another or hoisted out of the loop.
    volatile double result = 1.0;
    do {
        result = kernel(iterations_per_check, 1.0 + result * 1e-300);
        calls += iterations_per_check;
        elapsed = std::chrono::duration<double>(Clock::now() - start).count();
    } while (elapsed < seconds);
    return static_cast<double>(calls) * chains * flops_per_call / elapsed * 1e-9;
}

#if defined(__x86_64__)
__attribute__((target("avx512f"))) double avx512_chains(std::int64_t iterations, double start) {
    __m512d acc[chains];
    for (int c = 0; c < chains; ++c) acc[c] = _mm512_set1_pd(start + c * 1e-3);
    const __m512d a = _mm512_set1_pd(0.999999), b = _mm512_set1_pd(1e-7);
    for (std::int64_t i = 0; i < iterations; ++i)
        for (int c = 0; c < chains; ++c) acc[c] = _mm512_fmadd_pd(acc[c], a, b);
    double total = 0.0;
    for (int c = 0; c < chains; ++c) total += _mm512_reduce_add_pd(acc[c]);
    return total;  // used, so the chains cannot be optimized away
}

__attribute__((target("avx2,fma"))) double avx2_chains(std::int64_t iterations, double start) {
    __m256d acc[chains];
    for (int c = 0; c < chains; ++c) acc[c] = _mm256_set1_pd(start + c * 1e-3);
    const __m256d a = _mm256_set1_pd(0.999999), b = _mm256_set1_pd(1e-7);
    for (std::int64_t i = 0; i < iterations; ++i)
        for (int c = 0; c < chains; ++c) acc[c] = _mm256_fmadd_pd(acc[c], a, b);
    alignas(32) double lanes[4];
    double total = 0.0;
    for (int c = 0; c < chains; ++c) {
        _mm256_store_pd(lanes, acc[c]);
        total += lanes[0] + lanes[1] + lanes[2] + lanes[3];
    }
    return total;  // used, so the chains cannot be optimized away
}

double sse2_chains(std::int64_t iterations, double start) {
    __m128d acc[chains];
    for (int c = 0; c < chains; ++c) acc[c] = _mm_set1_pd(start + c * 1e-3);
    const __m128d a = _mm_set1_pd(0.999999), b = _mm_set1_pd(1e-7);
    for (std::int64_t i = 0; i < iterations; ++i)
        for (int c = 0; c < chains; ++c) acc[c] = _mm_add_pd(_mm_mul_pd(acc[c], a), b);
    alignas(16) double lanes[2];
    double total = 0.0;
    for (int c = 0; c < chains; ++c) {
        _mm_store_pd(lanes, acc[c]);
        total += lanes[0] + lanes[1];
    }
    return total;  // used, so the chains cannot be optimized away
}
#else
double scalar_chains(std::int64_t iterations, double start) {
    double acc[chains];
    for (int c = 0; c < chains; ++c) acc[c] = start + c * 1e-3;
    for (std::int64_t i = 0; i < iterations; ++i)
        for (int c = 0; c < chains; ++c) acc[c] = acc[c] * 0.999999 + 1e-7;
    double total = 0.0;
    for (int c = 0; c < chains; ++c) total += acc[c];
    return total;  // used, so the chains cannot be optimized away
}

#endif

}  // namespace

FmaPeak measure_fma_peak(double seconds) {
#if defined(__x86_64__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f")) return {run_for(seconds, 16, avx512_chains), "avx512f", 16};
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return {run_for(seconds, 8, avx2_chains), "avx2+fma", 8};
    return {run_for(seconds, 4, sse2_chains), "sse2", 4};
#else
    return {run_for(seconds, 2, scalar_chains), "scalar", 2};
#endif
}

}  // namespace shakedown::hardware
