// Checks a stencil field against the analytic answer lambda^T u0 over the whole domain:
// the global maximum error, relative to the mode's amplitude lambda^T, and the cell where
// it occurs (global indices), agreed on by every rank.
#pragma once

#include "kernels/stencil/stencil_geometry.hpp"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace shakedown::kernels {

struct StencilError {
    double max_relative = 0.0;            // max |u - exact| / lambda^T over all ranks
    std::array<std::size_t, 3> cell{};    // global 1-based indices of that cell
    int rank = 0;                         // rank in geometry.cart() that owns it
    double value = 0.0;
    double expected = 0.0;
};

// Collective over geometry.cart().
StencilError stencil_error(const StencilGeometry& geometry, const std::vector<double>& field, std::int64_t steps);

// Rounding admitted: each step rounds a few times with weights summing to <= 1, so errors
// grow at most linearly in the step count; 32 ulps per step is far above that and far
// below any real corruption.
double stencil_tolerance(std::int64_t steps);

std::string describe_failure(const StencilError& error, double tolerance);

}  // namespace shakedown::kernels
