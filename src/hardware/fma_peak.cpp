#include "hardware/fma_peak.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <thread>
#include <vector>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace shakedown::hardware {
namespace {

using Clock = std::chrono::steady_clock;

// Independent chains: at least latency (4 cycles) x FMA units (2) on every current core, and
// few enough that the accumulators and the two constants stay in registers: AVX-512 has 32
// vector registers, AVX2/AVX/SSE2 16 (16 chains there spill to memory: measured at 1/3 of the
// rate on a Zen 5 core).
constexpr int chains = 16;        // AVX-512
constexpr int narrow_chains = 12;  // 16-register sets
constexpr std::int64_t iterations_per_check = 1 << 14;

template <typename Kernel>
double run_for(double seconds, int flops_per_call, int chains, Kernel kernel) {
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

// The 256-bit accumulators' lanes, summed (the AVX and AVX2 chains' result).
__attribute__((target("avx"))) double sum_of_lanes(const __m256d* acc, int count) {
    alignas(32) double lanes[4];
    double total = 0.0;
    for (int c = 0; c < count; ++c) {
        _mm256_store_pd(lanes, acc[c]);
        total += lanes[0] + lanes[1] + lanes[2] + lanes[3];
    }
    return total;
}

__attribute__((target("avx2,fma"))) double avx2_chains(std::int64_t iterations, double start) {
    constexpr int chains = narrow_chains;
    __m256d acc[chains];
    for (int c = 0; c < chains; ++c) acc[c] = _mm256_set1_pd(start + c * 1e-3);
    const __m256d a = _mm256_set1_pd(0.999999), b = _mm256_set1_pd(1e-7);
    for (std::int64_t i = 0; i < iterations; ++i)
        for (int c = 0; c < chains; ++c) acc[c] = _mm256_fmadd_pd(acc[c], a, b);
    return sum_of_lanes(acc, chains);  // used, so the chains cannot be optimized away
}

__attribute__((target("avx"))) double avx_chains(std::int64_t iterations, double start) {
    constexpr int chains = narrow_chains;
    __m256d acc[chains];
    for (int c = 0; c < chains; ++c) acc[c] = _mm256_set1_pd(start + c * 1e-3);
    const __m256d a = _mm256_set1_pd(0.999999), b = _mm256_set1_pd(1e-7);
    for (std::int64_t i = 0; i < iterations; ++i)
        for (int c = 0; c < chains; ++c) acc[c] = _mm256_add_pd(_mm256_mul_pd(acc[c], a), b);
    return sum_of_lanes(acc, chains);  // used, so the chains cannot be optimized away
}

double sse2_chains(std::int64_t iterations, double start) {
    constexpr int chains = narrow_chains;
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
    constexpr int chains = narrow_chains;
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

FmaPeak measure_fma_peak(double seconds, std::optional<VectorIsa> at_most) {
#if defined(__x86_64__)
    __builtin_cpu_init();
    const auto allowed = [&](VectorIsa isa) { return !at_most || isa <= *at_most; };
    if (allowed(VectorIsa::avx512_fma) && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("fma"))
        return {run_for(seconds, 16, chains, avx512_chains), "avx512f", 16};
    if (allowed(VectorIsa::avx2_fma) && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        return {run_for(seconds, 8, narrow_chains, avx2_chains), "avx2+fma", 8};
    if (allowed(VectorIsa::avx) && __builtin_cpu_supports("avx")) return {run_for(seconds, 8, narrow_chains, avx_chains), "avx", 8};
    return {run_for(seconds, 4, narrow_chains, sse2_chains), "sse2", 4};
#else
    (void)at_most;
    return {run_for(seconds, 2, narrow_chains, scalar_chains), "scalar", 2};
#endif
}

FmaPeak measure_fma_peak_on_threads(double seconds, std::optional<VectorIsa> at_most, int threads) {
    // The best of three windows per thread: a neighbour's burst (a VM's stolen time) only lowers
    // a window, and a peak is what the cores can do.
    const auto best_of_windows = [&] {
        FmaPeak best = measure_fma_peak(seconds / 3.0, at_most);
        for (int window = 1; window < 3; ++window) {
            const FmaPeak next = measure_fma_peak(seconds / 3.0, at_most);
            if (next.gflops > best.gflops) best = next;
        }
        return best;
    };
    std::vector<FmaPeak> peaks(static_cast<std::size_t>(std::max(1, threads)));
    {
        std::vector<std::jthread> workers;
        for (std::size_t i = 1; i < peaks.size(); ++i) workers.emplace_back([&, i] { peaks[i] = best_of_windows(); });
        peaks[0] = best_of_windows();
    }  // joined
    FmaPeak total = peaks[0];
    for (std::size_t i = 1; i < peaks.size(); ++i) total.gflops += peaks[i].gflops;
    return total;
}

double fma_peak_ceiling_gflops(const FmaPeak& peak) {
    // Two FMA (or add + multiply) units, each doing flops_per_instruction per cycle.
    return 2.0 * peak.flops_per_instruction * highest_plausible_core_ghz;
}

}  // namespace shakedown::hardware
