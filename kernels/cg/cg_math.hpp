// What cg_fp64 computes beside the solver: the operator, the manufactured solution, the
// spectrum of the operator, the convergence bounds the answer is judged against, and the work
// one iteration does (for the rates).
//
// The operator: A = the 7-point Laplacian with unit spacing and zero Dirichlet boundary on an
// nx x ny x nz grid of interior cells, (A u)(i,j,k) = 6 u(i,j,k) - (sum of the six neighbours),
// the neighbours beyond the domain being 0. A is symmetric positive definite with the
// eigenvalues sum_d 2 (1 - cos(pi m_d / (n_d + 1))), m_d = 1..n_d, so
//     lambda_min = sum_d 2 (1 - cos(pi / (n_d + 1))),  lambda_max = sum_d 2 (1 + cos(pi / (n_d + 1))),
// kappa = lambda_max / lambda_min (about 4 (n+1)^2 / (3 pi^2) x 3 for a cube: 440 at 32^3).
//
// The bounds (CG from x0 = 0, exact arithmetic, k iterations, rho = (sqrt(kappa) - 1) / (sqrt(kappa) + 1)):
//     ||x* - x_k||_A <= 2 rho^k ||x*||_A
// and with ||v||_2 <= ||v||_A / sqrt(lambda_min), ||x*||_A <= sqrt(lambda_max) ||x*||,
// ||A e||_2 <= sqrt(lambda_max) ||e||_A and ||x*||_A <= ||b|| / sqrt(lambda_min):
//     ||x* - x_k|| / ||x*|| <= 2 sqrt(kappa) rho^k   and   ||b - A x_k|| / ||b|| <= 2 sqrt(kappa) rho^k.
// Rounding adds a floor: the recursively updated residual drifts from the true one by at most
// about eps k ||A|| max_j ||x_j|| (Greenbaum 1997; ||x_j|| grows monotonically to ||x*|| from
// x0 = 0), admitted with a factor 32:
//     residual floor = 32 eps (k + 1) lambda_max ||x*|| / ||b||,   error floor = 32 eps (k + 1) kappa
// (the error's is the residual's through ||e|| <= ||b - A x|| / lambda_min). Stopping early at a
// tolerance tau on the recursive residual replaces 2 sqrt(kappa) rho^k by min(that, tau) for the
// residual; the error's Krylov term is also capped by kappa x the residual bound, since
// ||e|| / ||x*|| <= kappa ||b - A x|| / ||b||. A corrupted halo value delta in one SpMV leaves b - A x_k off the recursive residual
// by alpha delta for good: with delta = ||b|| (cg_fp64's planted fault) both figures land near
// alpha ~ 1/lambda, orders of magnitude above the bounds.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#if defined(__CUDACC__)
#define SHAKEDOWN_CG_HOST_DEVICE __host__ __device__
#else
#define SHAKEDOWN_CG_HOST_DEVICE
#endif

namespace shakedown::kernels::cg {

inline constexpr double unit_roundoff = 1.1102230246251565e-16;  // 2^-53
inline constexpr double rounding_factor = 32.0;

// (A u) at one cell, one order of operations on every backend and decomposition: 7 flops
// (5 additions of the neighbours, 1 multiplication, 1 subtraction).
SHAKEDOWN_CG_HOST_DEVICE inline double apply_laplacian(double center, double xm, double xp, double ym, double yp, double zm,
                                                       double zp) {
    return 6.0 * center - (((((xm + xp) + ym) + yp) + zm) + zp);
}

// x*(i, j, k) at a global 1-based cell: uniform in [-1, 1) from a 64-bit mix of the position, so
// every rank generates its part of one solution whatever the decomposition, and every mode of A
// is in it (a smooth x* would let CG converge in a few iterations and test little). Host code:
// the GPU backend loads the field the host made.
inline double manufactured_solution(std::uint64_t i, std::uint64_t j, std::uint64_t k,
                                    const std::array<std::size_t, 3>& global) {
    std::uint64_t z = (k * (global[1] + 2) + j) * (global[0] + 2) + i + 0x5DEECE66Dull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return static_cast<double>(z >> 11) * 0x1.0p-52 - 1.0;
}

struct Spectrum {
    double lambda_min = 0.0;
    double lambda_max = 0.0;
    double kappa() const { return lambda_max / lambda_min; }
};
Spectrum laplacian_spectrum(const std::array<std::size_t, 3>& global);

// 2 sqrt(kappa) rho^k: the exact-arithmetic bound on both relative figures after k iterations.
double convergence_bound(double kappa, std::int64_t iterations);
// The iterations after which convergence_bound falls to `target` (at least 1).
std::int64_t iterations_for(double kappa, double target);

struct Bounds {
    double relative_error = 0.0;
    double relative_residual = 0.0;
};
// What a correct solve must stay within after `iterations` (tolerance 0: none was set), given
// ||x*|| and ||b||; see the header comment.
Bounds solution_bounds(const Spectrum& spectrum, std::int64_t iterations, double tolerance, double solution_norm,
                       double rhs_norm);

// Work per interior cell and iteration, as the backends do it:
//   flops: SpMV 7 (apply_laplacian), p.q 2, x += alpha p 2, r -= alpha q 2, r.r 2, p = r + beta p 2;
//   bytes (each array read or written once per pass, no write-allocate, as STREAM counts):
//   SpMV reads p, writes q (16); p.q reads p, q (16); the fused x, r update with r.r reads x, p,
//   r, q and writes x, r (48); p = r + beta p reads r, p, writes p (24).
inline constexpr double flops_per_cell = 7 + 2 + 2 + 2 + 2 + 2;                                    // 17
inline constexpr double bytes_per_cell = (2 + 2 + 6 + 3) * static_cast<double>(sizeof(double));  // 104

}  // namespace shakedown::kernels::cg
