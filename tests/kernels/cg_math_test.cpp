// cg_fp64's arithmetic beside the solver: the work counted per iteration, the operator and its
// spectrum (checked against the operator itself), the CG bounds and the manufactured solution.
#include "kernels/cg/cg_kernel_timing.hpp"
#include "kernels/cg/cg_math.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>
#include <numbers>
#include <set>
#include <vector>

namespace shakedown::kernels::cg {
namespace {

TEST(CgMath, WorkPerCellAndIterationIsCountedOperationByOperation) {
    // SpMV 7 (apply_laplacian: 5 + 1 + 1), p.q 2, x and r updates 2 + 2, r.r 2, p update 2.
    EXPECT_EQ(flops_per_cell, 17.0);
    // SpMV p -> q 16, p.q 16, fused x, r update with r.r (4 reads, 2 writes) 48, p update 24.
    EXPECT_EQ(bytes_per_cell, 104.0);
}

TEST(CgMath, TheOperatorIsSixTimesTheCellMinusItsNeighbours) {
    EXPECT_EQ(apply_laplacian(1.0, 0, 0, 0, 0, 0, 0), 6.0);
    EXPECT_EQ(apply_laplacian(2.0, 2, 2, 2, 2, 2, 2), 0.0);  // constants are in the kernel away from the boundary
    EXPECT_EQ(apply_laplacian(0.5, 1, 2, 3, 4, 5, 6), 3.0 - 21.0);
}

// A = the 7-point Laplacian on n^3 cells, plain loops, zero outside.
std::vector<double> laplacian_of(const std::vector<double>& u, std::size_t n) {
    const auto at = [&](long i, long j, long k) {
        const long m = static_cast<long>(n);
        if (i < 0 || j < 0 || k < 0 || i >= m || j >= m || k >= m) return 0.0;
        return u[static_cast<std::size_t>(i + m * (j + m * k))];
    };
    std::vector<double> out(u.size());
    for (long k = 0; k < static_cast<long>(n); ++k)
        for (long j = 0; j < static_cast<long>(n); ++j)
            for (long i = 0; i < static_cast<long>(n); ++i)
                out[static_cast<std::size_t>(i + static_cast<long>(n) * (j + static_cast<long>(n) * k))] =
                    apply_laplacian(at(i, j, k), at(i - 1, j, k), at(i + 1, j, k), at(i, j - 1, k), at(i, j + 1, k),
                                    at(i, j, k - 1), at(i, j, k + 1));
    return out;
}

TEST(CgMath, TheSpectrumsEndsAreTheOperatorsEigenvalues) {
    constexpr std::size_t n = 9;
    const Spectrum spectrum = laplacian_spectrum({n, n, n});
    // The sine modes of frequency 1 and n in every dimension are eigenvectors with lambda_min and lambda_max.
    for (const auto& [m, lambda] : {std::pair{1.0, spectrum.lambda_min}, std::pair{static_cast<double>(n), spectrum.lambda_max}}) {
        std::vector<double> u(n * n * n);
        for (std::size_t k = 0; k < n; ++k)
            for (std::size_t j = 0; j < n; ++j)
                for (std::size_t i = 0; i < n; ++i) {
                    const auto s = [&](std::size_t c) { return std::sin(std::numbers::pi * m * (c + 1.0) / (n + 1.0)); };
                    u[i + n * (j + n * k)] = s(i) * s(j) * s(k);
                }
        const std::vector<double> au = laplacian_of(u, n);
        for (std::size_t c = 0; c < u.size(); ++c) ASSERT_NEAR(au[c], lambda * u[c], 1e-13) << c;
    }
    EXPECT_NEAR(spectrum.lambda_min, 6.0 * (1.0 - std::cos(std::numbers::pi / 10.0)), 1e-15);
    EXPECT_NEAR(spectrum.lambda_max, 6.0 * (1.0 + std::cos(std::numbers::pi / 10.0)), 1e-14);
    // 32^3: kappa ~ 440; one cell: the operator is 6 I, kappa 1.
    EXPECT_NEAR(laplacian_spectrum({32, 32, 32}).kappa(), 440.6, 0.5);
    EXPECT_DOUBLE_EQ(laplacian_spectrum({1, 1, 1}).kappa(), 1.0);
    // Anisotropic: each dimension adds its own terms.
    const Spectrum flat = laplacian_spectrum({4, 9, 9});
    EXPECT_NEAR(flat.lambda_min, 2 * (1 - std::cos(std::numbers::pi / 5)) + 4 * (1 - std::cos(std::numbers::pi / 10)), 1e-15);
}

TEST(CgMath, TheBoundIsTwoRootKappaRhoToTheK) {
    const double kappa = 100.0;  // rho = 9 / 11
    EXPECT_DOUBLE_EQ(convergence_bound(kappa, 0), 20.0);
    EXPECT_NEAR(convergence_bound(kappa, 10), 20.0 * std::pow(9.0 / 11.0, 10), 1e-15);
    const std::int64_t k = iterations_for(kappa, 1e-8);
    EXPECT_LE(convergence_bound(kappa, k), 1e-8);
    EXPECT_GT(convergence_bound(kappa, k - 1), 1e-8);
    EXPECT_EQ(k, 107);  // ln(2e9) / ln(11/9)
    EXPECT_EQ(iterations_for(1.0, 1e-8), 1);
}

TEST(CgMath, SolutionBoundsAddTheRoundingFloor) {
    const Spectrum spectrum{0.5, 12.0};  // kappa 24
    const double eps = unit_roundoff;
    const Bounds fixed = solution_bounds(spectrum, 99, 0.0, 10.0, 60.0);
    const double krylov = convergence_bound(24.0, 99);
    EXPECT_DOUBLE_EQ(fixed.relative_error, krylov + 32 * eps * 100 * 24.0);
    EXPECT_DOUBLE_EQ(fixed.relative_residual, krylov + 32 * eps * 100 * 12.0 * 10.0 / 60.0);
    // A tolerance caps the residual's Krylov term (the solve stopped at it), and through
    // ||e||/||x*|| <= kappa ||r||/||b|| the error's too.
    const Bounds early = solution_bounds(spectrum, 5, 1e-3, 10.0, 60.0);
    EXPECT_DOUBLE_EQ(early.relative_residual, 1e-3 + 32 * eps * 6 * 2.0);
    EXPECT_GT(convergence_bound(24.0, 5), 24.0 * early.relative_residual);
    EXPECT_DOUBLE_EQ(early.relative_error, 24.0 * early.relative_residual + 32 * eps * 6 * 24.0);
    // Far below what one corrupted halo value of size ||b|| leaves (about 1/lambda_max ~ 0.08).
    const Spectrum cube = laplacian_spectrum({64, 64, 64});
    const Bounds big = solution_bounds(cube, iterations_for(cube.kappa(), 1e-8), 0.0, 1.0, 6.0);
    EXPECT_LT(big.relative_error, 1e-6);
    EXPECT_LT(big.relative_residual, 1e-7);
}

TEST(CgMath, TheManufacturedSolutionIsAFunctionOfTheGlobalCellInMinusOneToOne) {
    const std::array<std::size_t, 3> global{8, 8, 8};
    std::set<double> values;
    double sum = 0.0;
    for (std::uint64_t k = 1; k <= 8; ++k)
        for (std::uint64_t j = 1; j <= 8; ++j)
            for (std::uint64_t i = 1; i <= 8; ++i) {
                const double v = manufactured_solution(i, j, k, global);
                EXPECT_GE(v, -1.0);
                EXPECT_LT(v, 1.0);
                EXPECT_EQ(v, manufactured_solution(i, j, k, global));
                values.insert(v);
                sum += v;
            }
    EXPECT_EQ(values.size(), 512u);      // no two cells alike
    EXPECT_LT(std::abs(sum / 512), 0.1);  // centred
}

// kernel_timing's parameters: medians per kernel, GB/s from each kernel's own bytes, the median
// of the per-iteration sums (not the sum of the medians) beside the iteration times.
TEST(CgKernelTiming, MediansAndBandwidthPerKernelInLaunchOrder) {
    CgBackend::KernelTimes times;
    times.names = {"spmv", "dot_pq"};
    times.bytes = {4e9, 2e9};
    times.seconds = {{1.0, 3.0, 2.0}, {0.5, 0.5, 4.0}};
    times.span_s = {2.0, 4.0, 7.0};
    times.back_to_back_s = 2.25;
    std::map<std::string, std::string> p;
    add_kernel_timing(times, 2.5, p);
    EXPECT_EQ(p.at("kernel_bytes"), "spmv 4000000000, dot_pq 2000000000");
    EXPECT_EQ(p.at("kernel_seconds"), "spmv 2, dot_pq 0.5");
    EXPECT_EQ(p.at("kernel_gbs"), "spmv 2, dot_pq 4");
    EXPECT_EQ(p.at("kernel_sum_s"), "3.5");  // sums 1.5, 3.5, 6
    EXPECT_EQ(p.at("kernel_span_s"), "4");
    EXPECT_EQ(p.at("kernel_back_to_back_s"), "2.25");
    EXPECT_EQ(p.at("solve_iteration_s"), "2.5");
    EXPECT_EQ(p.at("kernel_timing_iterations"), "3");
}

}  // namespace
}  // namespace shakedown::kernels::cg
