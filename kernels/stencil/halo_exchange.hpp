// One stencil step with its halo exchange: nonblocking receives posted, faces packed and
// sent with MPI_Isend, the interior updated while the messages travel, then the halos
// unpacked and the boundary shell updated. Faces on the domain boundary have no neighbour
// (MPI_PROC_NULL) and keep their zero halos (Dirichlet). Messages go through host
// buffers, so no GPU-aware MPI is assumed.
#pragma once

#include "kernels/stencil/stencil_backend.hpp"
#include "kernels/stencil/stencil_geometry.hpp"

namespace shakedown::kernels {

struct StepTiming {
    double halo_s = 0.0;     // packing, posting, waiting beyond the interior's work, unpacking
    double compute_s = 0.0;  // interior (overlapped) and boundary shell
};

class HaloExchange {
public:
    explicit HaloExchange(const StencilGeometry& geometry);
    // Collective with the face neighbours in geometry.cart().
    StepTiming step(StencilBackend& backend);

private:
    const StencilGeometry& geometry_;
    FaceMask faces_{};
};

}  // namespace shakedown::kernels
