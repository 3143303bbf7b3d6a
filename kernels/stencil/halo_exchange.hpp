// One stencil step with its halo exchange: nonblocking receives posted, faces packed and
// sent with MPI_Isend, the interior updated while the messages travel, then the halos
// unpacked and the boundary shell updated. Faces on the domain boundary have no neighbour
// (MPI_PROC_NULL) and keep their zero halos (Dirichlet). Messages go through host
// buffers, so no GPU-aware MPI is assumed. A backend that exchanges halos on the device
// (halo_path nccl) gets the same step without MPI: everything queued, no host wait.
#pragma once

#include "kernels/stencil/stencil_backend.hpp"
#include "kernels/stencil/stencil_geometry.hpp"

#include <array>
#include <optional>
#include <string>
#include <string_view>

namespace shakedown::kernels {

// How halos travel between ranks (stencil3d's parameter halo_path).
enum class HaloPath { host, nccl };
// "host" or "nccl", or nothing for "auto" (the test decides once it knows the ranks' GPUs);
// anything else is an InputError naming the choices.
std::optional<HaloPath> parse_halo_path(const std::string& text);
std::string_view to_string(HaloPath path);
// True when this binary can exchange halos GPU to GPU (CUDA kernels and NCCL built in).
bool device_halo_exchange_built();

struct StepTiming {
    double halo_s = 0.0;     // packing, posting, waiting beyond the interior's work, unpacking
    double compute_s = 0.0;  // interior (overlapped) and boundary shell
};

class HaloExchange {
public:
    explicit HaloExchange(const StencilGeometry& geometry);
    // Collective with the face neighbours in geometry.cart().
    StepTiming step(StencilBackend& backend);
    // The weak-scaling phases' halves of a step (stencil_scaling.hpp), each alone: the update of
    // every cell with no message (as a rank without neighbours: the work of a step, T1), and the
    // halo exchange with no update (receives, packing, messages, unpacking; collective). Both
    // leave the field unlike a step's: the field is loaded again before the validated steps.
    void update_alone(StencilBackend& backend) const;
    void exchange_alone(StencilBackend& backend);
    // Bytes this rank sends and receives in one exchange.
    double exchanged_bytes(StencilBackend& backend) const;
    // The share of the rank's cells updated while its messages travel (no face halo read).
    double interior_fraction() const;

private:
    // The exchange's nonblocking requests: a receive and a send per neighbour face at most.
    struct Requests {
        std::array<MPI_Request, 2 * stencil_faces> handles{};
        int count = 0;
    };
    void post_receives(StencilBackend& backend, Requests& requests) const;
    void post_sends(StencilBackend& backend, Requests& requests) const;
    StepTiming device_step(StencilBackend& backend) const;

    const StencilGeometry& geometry_;
    FaceMask faces_{};
};

}  // namespace shakedown::kernels
