// Reproducible pseudo-random matrix entries in [-1, 1): a counter-based hash of (seed,
// index), so any entry can be produced again on the host to check a device's product, and
// GEMM timings see realistic data (never zeros, which some hardware computes faster).
#pragma once

#include "core/counter_hash.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace shakedown::gemm {

// Uniform in [-1, 1) with 53 random bits.
constexpr double random_entry(std::uint64_t seed, std::uint64_t index) {
    const std::uint64_t bits = mix64(seed * 0xD1B54A32D192ED03ull + index) >> 11;
    return static_cast<double>(bits) * (2.0 / 9007199254740992.0) - 1.0;
}

// One of -2, -1, 1, 2 (never zero), from the same hash.
constexpr double small_integer_entry(std::uint64_t seed, std::uint64_t index) {
    constexpr double values[4] = {-2.0, -1.0, 1.0, 2.0};
    return values[mix64(seed * 0xD1B54A32D192ED03ull + index) >> 62];
}

// What the entries look like. Power-capped GPUs run a GEMM faster on data with few significant
// bits (fewer switching transistors, less power): on the H200 a DGEMM on small integers ran at
// 64.8 TFLOP/s sustained, on uniform [-1, 1) at 54-57 (docs/benchmarks.md). Uniform is what
// science codes feed; small integers reproduce vendor figures measured so.
enum class MatrixFill { uniform, small_integers };

std::optional<MatrixFill> matrix_fill_from(const std::string& name);  // "uniform", "small_integers"
const char* to_string(MatrixFill fill);

// rows x cols column-major matrix of random_entry (or small_integer_entry)(seed, i + j * rows).
std::vector<double> random_matrix(std::uint64_t seed, std::size_t rows, std::size_t cols,
                                  MatrixFill fill = MatrixFill::uniform);

}  // namespace shakedown::gemm
