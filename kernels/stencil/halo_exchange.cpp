#include "kernels/stencil/halo_exchange.hpp"

#include <mpi.h>

#include <stdexcept>

namespace shakedown::kernels {

HaloExchange::HaloExchange(const StencilGeometry& geometry) : geometry_(geometry) {
    for (int face = 0; face < stencil_faces; ++face) {
        send_[face].resize(geometry.face_cells(face));
        receive_[face].resize(geometry.face_cells(face));
    }
}

void HaloExchange::exchange(StencilBackend& backend) {
    // What this rank sends through its face f arrives at the neighbour's opposite face
    // f ^ 1; the tag is the sender's face, so a receive on face g expects tag g ^ 1.
    std::array<MPI_Request, 2 * stencil_faces> requests{};
    int count = 0;
    for (int face = 0; face < stencil_faces; ++face) {
        if (geometry_.neighbour(face) == MPI_PROC_NULL) continue;
        MPI_Irecv(receive_[face].data(), static_cast<int>(receive_[face].size()), MPI_DOUBLE, geometry_.neighbour(face),
                  face ^ 1, geometry_.cart(), &requests[count++]);
    }
    for (int face = 0; face < stencil_faces; ++face) {
        if (geometry_.neighbour(face) == MPI_PROC_NULL) continue;
        backend.pack(face, send_[face]);
        MPI_Isend(send_[face].data(), static_cast<int>(send_[face].size()), MPI_DOUBLE, geometry_.neighbour(face), face,
                  geometry_.cart(), &requests[count++]);
    }
    if (MPI_Waitall(count, requests.data(), MPI_STATUSES_IGNORE) != MPI_SUCCESS)
        throw std::runtime_error("stencil3d: halo exchange failed");
    for (int face = 0; face < stencil_faces; ++face)
        if (geometry_.neighbour(face) != MPI_PROC_NULL) backend.unpack(face, receive_[face]);
}

}  // namespace shakedown::kernels
