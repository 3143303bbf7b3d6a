#include "kernels/cg/cg_math.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace shakedown::kernels::cg {

Spectrum laplacian_spectrum(const std::array<std::size_t, 3>& global) {
    Spectrum spectrum;
    for (const std::size_t n : global) {
        const double c = std::cos(std::numbers::pi / static_cast<double>(n + 1));
        spectrum.lambda_min += 2.0 * (1.0 - c);
        spectrum.lambda_max += 2.0 * (1.0 + c);
    }
    return spectrum;
}

double convergence_bound(double kappa, std::int64_t iterations) {
    const double root = std::sqrt(kappa);
    const double rho = (root - 1.0) / (root + 1.0);
    return 2.0 * root * std::pow(rho, static_cast<double>(iterations));
}

std::int64_t iterations_for(double kappa, double target) {
    const double root = std::sqrt(kappa);
    const double rho = (root - 1.0) / (root + 1.0);
    if (!(rho > 0.0)) return 1;  // kappa 1: one iteration is exact
    const double k = std::ceil(std::log(target / (2.0 * root)) / std::log(rho));
    return std::max<std::int64_t>(1, static_cast<std::int64_t>(k));
}

Bounds solution_bounds(const Spectrum& spectrum, std::int64_t iterations, double tolerance, double solution_norm,
                       double rhs_norm) {
    const double kappa = spectrum.kappa();
    const double krylov = convergence_bound(kappa, iterations);
    const double drift = rounding_factor * unit_roundoff * static_cast<double>(iterations + 1);
    Bounds bounds;
    const double scale = rhs_norm > 0.0 ? spectrum.lambda_max * solution_norm / rhs_norm : 0.0;
    bounds.relative_residual = (tolerance > 0.0 ? std::min(krylov, tolerance) : krylov) + drift * scale;
    // ||e|| / ||x*|| <= kappa ||b - Ax|| / ||b||: after a tolerance stop often far tighter than
    // the Krylov term (2 sqrt(kappa) rho^k is a worst case over all spectra).
    bounds.relative_error = std::min(krylov, kappa * bounds.relative_residual) + drift * kappa;
    return bounds;
}

}  // namespace shakedown::kernels::cg
