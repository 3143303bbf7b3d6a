// The halo exchange of one step: nonblocking receives posted first, each face packed and
// sent with MPI_Isend to its neighbour, then unpacked on arrival. Faces on the domain
// boundary have no neighbour (MPI_PROC_NULL) and keep their zero halos (Dirichlet).
// Messages go through host buffers, so no GPU-aware MPI is assumed.
#pragma once

#include "kernels/stencil/stencil_backend.hpp"
#include "kernels/stencil/stencil_geometry.hpp"

#include <array>
#include <vector>

namespace shakedown::kernels {

class HaloExchange {
public:
    explicit HaloExchange(const StencilGeometry& geometry);
    // Collective with the face neighbours in geometry.cart().
    void exchange(StencilBackend& backend);

private:
    const StencilGeometry& geometry_;
    std::array<std::vector<double>, stencil_faces> send_;
    std::array<std::vector<double>, stencil_faces> receive_;
};

}  // namespace shakedown::kernels
