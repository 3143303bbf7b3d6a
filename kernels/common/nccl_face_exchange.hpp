// The device halo path of the 3-D grid kernels (stencil3d, cg_fp64): one NCCL group that sends
// every face of the rank's block that has a neighbour and receives the neighbour's halo for it.
// NCCL pairs a send with the peer's receive in issue order per peer; each peer is one face here
// (no periodic wrap), so the faces taken in order match on both sides.
#pragma once

#include "gpu/nccl_communicator.hpp"

#include <cuda_runtime.h>

#include <array>
#include <cstddef>

namespace shakedown::kernels {

// Device memory NCCL sends from or receives into for one face.
struct NcclFace {
    double* data;
    std::size_t count;
};

// `face_memory(face, outgoing)` gives the NcclFace to send (outgoing) or to receive into.
template <typename FaceMemory>
void exchange_faces_over_nccl(const gpu::NcclCommunicator& nccl, cudaStream_t stream,
                              const std::array<int, 6>& neighbour_ranks, const std::array<bool, 6>& faces,
                              FaceMemory&& face_memory) {
    SHAKEDOWN_NCCL(ncclGroupStart());
    for (int face = 0; face < 6; ++face) {
        if (!faces[face]) continue;
        const int peer = neighbour_ranks[face];
        const NcclFace out = face_memory(face, true);
        const NcclFace in = face_memory(face, false);
        SHAKEDOWN_NCCL(ncclSend(out.data, out.count, ncclDouble, peer, nccl.get(), stream));
        SHAKEDOWN_NCCL(ncclRecv(in.data, in.count, ncclDouble, peer, nccl.get(), stream));
    }
    SHAKEDOWN_NCCL(ncclGroupEnd());
}

}  // namespace shakedown::kernels
