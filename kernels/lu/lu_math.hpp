// What lu_fp64 computes beside the factorization, as HPL defines it: the rate convention
// (2/3 N^3 + 2 N^2 floating-point operations for the factorization and the solve, over the
// time of both) and the scaled residual ||Ax-b||oo / (eps (||A||oo ||x||oo + ||b||oo) N), with
// eps the unit roundoff 2^-53 (LAPACK's dlamch('E')), which must be below 16 for the solution to
// count. The inputs are a function of (seed, row, column), so every rank and the GPU generate
// their part of the same matrix without sending it.
#pragma once

#include <cstdint>

namespace shakedown::kernels::lu {

inline constexpr double residual_limit = 16.0;  // HPL's threshold
inline constexpr double unit_roundoff = 1.1102230246251565e-16;  // 2^-53

double hpl_flops(double n);
double hpl_tflops(double n, double seconds);

// Inf-norms of the residual, the matrix, the solution and the right-hand side.
double scaled_residual(double residual_norm, double matrix_norm, double solution_norm, double rhs_norm, double n);

// A(row, column) and b(row): uniform in [-0.5, 0.5), from a 64-bit mix of the seed and the
// position (column-major position; b is column `n` of the same generator).
#if defined(__CUDACC__)
__host__ __device__
#endif
inline double input_entry(std::uint64_t seed, std::uint64_t row, std::uint64_t column, std::uint64_t n) {
    std::uint64_t z = seed * 0x9E3779B97F4A7C15ull + column * n + row + 1;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return static_cast<double>(z >> 11) * 0x1.0p-53 - 0.5;
}

}  // namespace shakedown::kernels::lu
