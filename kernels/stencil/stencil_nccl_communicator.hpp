// RAII NCCL communicator for stencil3d's device halo exchange (halo_path: nccl): rank 0 of the
// MPI communicator makes the unique id, MPI broadcasts it, every rank joins on the GPU selected
// by the caller; finalized and destroyed on scope exit. Included only where NCCL is built
// (SHAKEDOWN_KERNELS_HAVE_NCCL). mpi/nccl/nccl_communicator.hpp does the same for the NCCL
// tests, but its error path lives in the mpi objects, which the kernels' tests do not link.
#pragma once

#include <mpi.h>
#include <nccl.h>

#include <stdexcept>
#include <string>

namespace shakedown::kernels {

inline void nccl_check(ncclResult_t status, const char* what) {
    if (status == ncclSuccess) return;
    std::string message = std::string(what) + ": " + ncclGetErrorString(status);
    // NCCL's last error names the failing transport or peer.
    if (const char* last = ncclGetLastError(nullptr); last != nullptr && *last != '\0') message += std::string(" (") + last + ")";
    throw std::runtime_error(message);
}

class StencilNcclCommunicator {
public:
    // Collective over `comm`; NCCL ranks are `comm`'s ranks.
    explicit StencilNcclCommunicator(MPI_Comm comm) {
        int rank = 0, ranks = 1;
        MPI_Comm_rank(comm, &rank);
        MPI_Comm_size(comm, &ranks);
        ncclUniqueId id{};
        if (rank == 0) nccl_check(ncclGetUniqueId(&id), "ncclGetUniqueId");
        MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, comm);
        nccl_check(ncclCommInitRank(&comm_, ranks, id, rank), "ncclCommInitRank");
    }
    ~StencilNcclCommunicator() {
        if (comm_ == nullptr) return;
        ncclCommFinalize(comm_);  // completes the operations still queued before the teardown
        ncclCommDestroy(comm_);
    }
    StencilNcclCommunicator(const StencilNcclCommunicator&) = delete;
    StencilNcclCommunicator& operator=(const StencilNcclCommunicator&) = delete;

    ncclComm_t get() const { return comm_; }

private:
    ncclComm_t comm_ = nullptr;
};

}  // namespace shakedown::kernels
