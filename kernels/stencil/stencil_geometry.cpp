#include "kernels/stencil/stencil_geometry.hpp"

#include "core/errors.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numbers>

namespace shakedown::kernels {

StencilGeometry::StencilGeometry(MPI_Comm comm, const std::array<std::size_t, 3>& global) : global_(global) {
    int size = 0;
    MPI_Comm_size(comm, &size);
    dims_ = decomposition(size);
    for (int d = 0; d < 3; ++d)
        if (global_[d] < static_cast<std::size_t>(dims_[d]))
            throw InputError(fmt::format("stencil3d: {} cells along dimension {} cannot be split over {} ranks",
                                         global_[d], d, dims_[d]));
    const std::array<int, 3> periodic{0, 0, 0};
    MPI_Comm cart = MPI_COMM_NULL;
    MPI_Cart_create(comm, 3, dims_.data(), periodic.data(), /*reorder=*/0, &cart);
    cart_ = Communicator(cart);
    int rank = 0;
    MPI_Comm_rank(cart, &rank);
    std::array<int, 3> coords{};
    MPI_Cart_coords(cart, rank, 3, coords.data());
    for (int d = 0; d < 3; ++d) {
        const std::size_t base = global_[d] / dims_[d];
        const std::size_t extra = global_[d] % dims_[d];
        const auto c = static_cast<std::size_t>(coords[d]);
        local_[d] = base + (c < extra ? 1 : 0);
        offset_[d] = c * base + std::min(c, extra);
        MPI_Cart_shift(cart, d, 1, &neighbours_[2 * d], &neighbours_[2 * d + 1]);
    }
}

std::array<int, 3> StencilGeometry::decomposition(int ranks) {
    std::array<int, 3> dims{};
    MPI_Dims_create(ranks, 3, dims.data());  // non-increasing: the largest count first
    std::reverse(dims.begin(), dims.end());
    return dims;
}

std::size_t StencilGeometry::face_cells(int face) const {
    const int d = face / 2;
    return local_[(d + 1) % 3] * local_[(d + 2) % 3];
}

double StencilGeometry::lambda() const {
    double sum = 1.0;
    for (const std::size_t n : global_) sum += std::cos(std::numbers::pi / static_cast<double>(n + 1));
    return 0.25 * sum;
}

std::array<std::vector<double>, 3> StencilGeometry::mode_factors() const {
    std::array<std::vector<double>, 3> factors;
    for (int d = 0; d < 3; ++d) {
        factors[d].assign(local_[d] + 2, 0.0);
        for (std::size_t i = 1; i <= local_[d]; ++i) {
            const double global_index = static_cast<double>(offset_[d] + i);
            factors[d][i] = std::sin(std::numbers::pi * global_index / static_cast<double>(global_[d] + 1));
        }
    }
    return factors;
}

std::vector<double> StencilGeometry::initial_field() const {
    const auto f = mode_factors();
    std::vector<double> field(field_size(), 0.0);
    for (std::size_t k = 1; k <= local_[2]; ++k)
        for (std::size_t j = 1; j <= local_[1]; ++j)
            for (std::size_t i = 1; i <= local_[0]; ++i) field[index(i, j, k)] = f[0][i] * f[1][j] * f[2][k];
    return field;
}

}  // namespace shakedown::kernels
