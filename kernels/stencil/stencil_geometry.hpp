// The stencil's global grid and its MPI domain decomposition: a Cartesian communicator
// from MPI_Dims_create/MPI_Cart_create, this rank's block (block distribution, the first
// `global % dims` coordinates one cell larger), its offset and its six face neighbours.
// Also the analytic solution of the discrete problem the stencil solves.
//
// The problem: u_new = 1/4 u + 1/8 (sum of the six neighbours) on nx x ny x nz interior
// cells with u = 0 on the boundary (Dirichlet). The mode
//     u0(i,j,k) = sin(pi i/(nx+1)) sin(pi j/(ny+1)) sin(pi k/(nz+1)),  i = 1..nx, ...
// is an eigenvector of that update: each step multiplies it by exactly
//     lambda = 1/4 (1 + cos(pi/(nx+1)) + cos(pi/(ny+1)) + cos(pi/(nz+1))),
// so after T steps the exact discrete answer is lambda^T u0, whatever the decomposition.
#pragma once

#include "core/communicator.hpp"

#include <array>
#include <cstddef>
#include <vector>

namespace shakedown::kernels {

inline constexpr int stencil_faces = 6;  // face = 2 * dimension + side (0 low, 1 high)

class StencilGeometry {
public:
    // Collective over `comm`; throws InputError when a dimension has fewer cells than ranks.
    StencilGeometry(MPI_Comm comm, const std::array<std::size_t, 3>& global);

    // Ranks per dimension for `ranks` ranks: MPI_Dims_create's balanced split, its largest
    // count on z (the slowest index), then y: 2 ranks cut along z, where a face is one
    // contiguous plane (packing is a plain copy, the shell one coalesced slab); x faces,
    // strided cell by cell, are cut only from 8 ranks on.
    static std::array<int, 3> decomposition(int ranks);

    MPI_Comm cart() const { return cart_.get(); }
    const std::array<int, 3>& dims() const { return dims_; }
    const std::array<std::size_t, 3>& global() const { return global_; }
    const std::array<std::size_t, 3>& local() const { return local_; }
    const std::array<std::size_t, 3>& offset() const { return offset_; }  // global index = offset + local index
    int neighbour(int face) const { return neighbours_[face]; }        // MPI_PROC_NULL on the boundary
    std::size_t local_cells() const { return local_[0] * local_[1] * local_[2]; }
    std::size_t face_cells(int face) const;
    // Index into this rank's field with one halo layer: i, j, k in 0..local+1, i fastest.
    std::size_t index(std::size_t i, std::size_t j, std::size_t k) const {
        return i + (local_[0] + 2) * (j + (local_[1] + 2) * k);
    }
    std::size_t field_size() const { return (local_[0] + 2) * (local_[1] + 2) * (local_[2] + 2); }

    double lambda() const;
    // Per-dimension factors of u0 for this rank's cells, halo included (0 outside the domain).
    std::array<std::vector<double>, 3> mode_factors() const;
    // The initial field u0 with zero halos.
    std::vector<double> initial_field() const;

private:
    Communicator cart_;
    std::array<std::size_t, 3> global_{};
    std::array<int, 3> dims_{};
    std::array<std::size_t, 3> local_{};
    std::array<std::size_t, 3> offset_{};
    std::array<int, stencil_faces> neighbours_{};
};

}  // namespace shakedown::kernels
