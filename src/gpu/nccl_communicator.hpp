// NCCL status codes become GpuError with NCCL's last error (it names the failing transport or
// peer): SHAKEDOWN_NCCL(ncclAllReduce(...)). NcclCommunicator owns a communicator over the
// ranks of an MPI communicator: rank 0 makes the unique id, MPI broadcasts it, every rank joins
// on its GPU; finalized (queued work completes) and destroyed on scope exit.
#pragma once

#include "gpu/cuda_check.hpp"

#include <mpi.h>
#include <nccl.h>

#include <string>

namespace shakedown::gpu {

inline void check_nccl(ncclResult_t code, const char* expression, const char* file, int line) {
    if (code == ncclSuccess || code == ncclInProgress) return;
    std::string message = ncclGetErrorString(code);
    if (const char* last = ncclGetLastError(nullptr); last != nullptr && *last != '\0') message += std::string(": ") + last;
    throw_gpu_error("NCCL", expression, message, file, line);
}

}  // namespace shakedown::gpu

#define SHAKEDOWN_NCCL(expression) ::shakedown::gpu::check_nccl((expression), #expression, __FILE__, __LINE__)

namespace shakedown::gpu {

class NcclCommunicator {
public:
    // Collective over `comm`; NCCL ranks are `comm`'s ranks, each on its `device`.
    NcclCommunicator(MPI_Comm comm, int device) {
        MPI_Comm_rank(comm, &rank_);
        MPI_Comm_size(comm, &ranks_);
        ncclUniqueId id{};
        if (rank_ == 0) SHAKEDOWN_NCCL(ncclGetUniqueId(&id));
        MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, comm);
        SHAKEDOWN_CUDA(cudaSetDevice(device));
        SHAKEDOWN_NCCL(ncclCommInitRank(&comm_, ranks_, id, rank_));
    }
    ~NcclCommunicator() {
        if (comm_ == nullptr) return;
        ncclCommFinalize(comm_);
        ncclCommDestroy(comm_);
    }
    NcclCommunicator(const NcclCommunicator&) = delete;
    NcclCommunicator& operator=(const NcclCommunicator&) = delete;

    ncclComm_t get() const { return comm_; }
    int rank() const { return rank_; }
    int ranks() const { return ranks_; }

private:
    ncclComm_t comm_ = nullptr;
    int rank_ = 0;
    int ranks_ = 1;
};

}  // namespace shakedown::gpu
