#include "kernels/stencil/stencil_validation.hpp"

#include <fmt/format.h>
#include <mpi.h>

#include <cmath>
#include <limits>

namespace shakedown::kernels {

StencilError stencil_error(const StencilGeometry& geometry, const std::vector<double>& field, std::int64_t steps) {
    const double amplitude = std::pow(geometry.lambda(), static_cast<double>(steps));
    const auto f = geometry.mode_factors();
    const auto& local = geometry.local();
    StencilError mine;
    mine.max_relative = -1.0;
    for (std::size_t k = 1; k <= local[2]; ++k)
        for (std::size_t j = 1; j <= local[1]; ++j)
            for (std::size_t i = 1; i <= local[0]; ++i) {
                const double expected = amplitude * (f[0][i] * f[1][j] * f[2][k]);
                const double value = field[geometry.index(i, j, k)];
                const double error = std::abs(value - expected) / amplitude;
                if (error > mine.max_relative || std::isnan(error)) {
                    mine.max_relative = std::isnan(error) ? std::numeric_limits<double>::infinity() : error;
                    mine.cell = {geometry.offset()[0] + i, geometry.offset()[1] + j, geometry.offset()[2] + k};
                    mine.value = value;
                    mine.expected = expected;
                }
            }

    // The worst cell anywhere, and its details from the rank that owns it.
    struct {
        double error;
        int rank;
    } local_worst{mine.max_relative, 0}, global_worst{};
    MPI_Comm_rank(geometry.cart(), &local_worst.rank);
    MPI_Allreduce(&local_worst, &global_worst, 1, MPI_DOUBLE_INT, MPI_MAXLOC, geometry.cart());
    std::array<double, 5> details{static_cast<double>(mine.cell[0]), static_cast<double>(mine.cell[1]),
                                  static_cast<double>(mine.cell[2]), mine.value, mine.expected};
    MPI_Bcast(details.data(), 5, MPI_DOUBLE, global_worst.rank, geometry.cart());
    StencilError worst;
    worst.max_relative = global_worst.error;
    worst.rank = global_worst.rank;
    worst.cell = {static_cast<std::size_t>(details[0]), static_cast<std::size_t>(details[1]),
                  static_cast<std::size_t>(details[2])};
    worst.value = details[3];
    worst.expected = details[4];
    return worst;
}

double stencil_tolerance(std::int64_t steps) {
    return 32.0 * static_cast<double>(steps + 2) * std::numeric_limits<double>::epsilon();
}

std::string describe_failure(const StencilError& error, double tolerance) {
    return fmt::format("cell ({}, {}, {}) on rank {} = {:.17g} (expected {:.17g}, relative error {:.3g} > tolerance {:.3g})",
                       error.cell[0], error.cell[1], error.cell[2], error.rank, error.value, error.expected,
                       error.max_relative, tolerance);
}

}  // namespace shakedown::kernels
