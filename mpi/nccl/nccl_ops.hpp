// The NCCL collectives as a table: name, nccl-tests bus-bandwidth factor, whether an in-place
// form exists, the buffer layout for a message size, and the launch. Sizes follow nccl-tests:
// the reduced buffer (all_reduce, reduce, broadcast, sendrecv), the gathered output
// (all_gather), the scattered input (reduce_scatter), one rank's whole input (alltoall).
#pragma once

#include <cuda_runtime.h>
#include <nccl.h>

#include <array>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace shakedown::mpi {

enum class NcclOpKind { all_reduce, all_gather, reduce_scatter, alltoall, broadcast, reduce, sendrecv };

struct NcclOp {
    NcclOpKind kind;
    std::string_view name;
    double (*bus_factor)(int ranks);
    bool has_in_place;
};

const std::array<NcclOp, 7>& nccl_ops();
const NcclOp* find_nccl_op(std::string_view name);

inline constexpr int nccl_root = 0;  // broadcast and reduce

// Elements (float) of the input and output buffers and the per-rank chunk, for a size.
struct NcclLayout {
    std::size_t input_count = 0;
    std::size_t output_count = 0;
    std::size_t chunk = 0;  // per-rank block (gather, scatter, alltoall); the count otherwise
    std::size_t bytes = 0;  // the size actually measured, rounded to whole elements per rank
};
NcclLayout nccl_layout(NcclOpKind kind, std::size_t bytes, int ranks);

// Where input and output live for out-of-place or in-place runs, inside two allocations
// sized for the layout (input_count and output_count floats).
struct NcclPlacement {
    float* input = nullptr;
    float* output = nullptr;
    std::size_t input_count = 0;
};
NcclPlacement nccl_placement(NcclOpKind kind, const NcclLayout& layout, float* input_allocation,
                             float* output_allocation, bool in_place, int rank);

// Enqueues one collective on `stream`; throws gpu::GpuError on an NCCL error.
void launch_nccl_op(NcclOpKind kind, const NcclPlacement& where, const NcclLayout& layout, int rank, int ranks,
                    ncclComm_t comm, cudaStream_t stream);

}  // namespace shakedown::mpi
