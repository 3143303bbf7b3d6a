// RAII NCCL communicator over the ranks of an MPI communicator: rank 0 makes the unique id,
// MPI broadcasts it, every rank joins on its bound GPU. Destroyed (after finalize) on scope exit.
#pragma once

#include "mpi/nccl/nccl_check.hpp"

#include <mpi.h>
#include <nccl.h>

namespace shakedown::mpi {

class NcclCommunicator {
public:
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

}  // namespace shakedown::mpi
