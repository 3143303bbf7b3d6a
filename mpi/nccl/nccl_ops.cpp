#include "mpi/nccl/nccl_ops.hpp"

#include "core/errors.hpp"

#include "gpu/cuda_check.hpp"
#include "gpu/nccl_communicator.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

namespace shakedown::mpi {
namespace {

double twice_n_minus_1_over_n(int n) { return 2.0 * (n - 1) / n; }
double n_minus_1_over_n(int n) { return static_cast<double>(n - 1) / n; }
double one(int) { return 1.0; }

}  // namespace

const std::array<NcclOp, 7>& nccl_ops() {
    // Bus-bandwidth factors as nccl-tests defines them (doc/PERFORMANCE.md there).
    static const std::array<NcclOp, 7> ops = {{
        {NcclOpKind::all_reduce, "all_reduce", twice_n_minus_1_over_n, true},
        {NcclOpKind::all_gather, "all_gather", n_minus_1_over_n, true},
        {NcclOpKind::reduce_scatter, "reduce_scatter", n_minus_1_over_n, true},
        {NcclOpKind::alltoall, "alltoall", n_minus_1_over_n, false},
        {NcclOpKind::broadcast, "broadcast", one, true},
        {NcclOpKind::reduce, "reduce", one, true},
        {NcclOpKind::sendrecv, "sendrecv", one, false},
    }};
    return ops;
}

const NcclOp* find_nccl_op(std::string_view name) {
    for (const auto& op : nccl_ops())
        if (op.name == name) return &op;
    return nullptr;
}


NcclLayout nccl_layout(NcclOpKind kind, std::size_t bytes, int ranks) {
    const auto n = static_cast<std::size_t>(ranks);
    const std::size_t elements = std::max<std::size_t>(1, bytes / sizeof(float));
    const std::size_t chunk = std::max<std::size_t>(1, elements / n);
    NcclLayout layout;
    switch (kind) {
    case NcclOpKind::all_gather: layout = {chunk, chunk * n, chunk, 0}; break;
    case NcclOpKind::reduce_scatter: layout = {chunk * n, chunk, chunk, 0}; break;
    case NcclOpKind::alltoall: layout = {chunk * n, chunk * n, chunk, 0}; break;
    default: layout = {elements, elements, elements, 0}; break;
    }
    const std::size_t measured = kind == NcclOpKind::all_gather ? layout.output_count : layout.input_count;
    layout.bytes = measured * sizeof(float);
    return layout;
}

NcclPlacement nccl_placement(NcclOpKind kind, const NcclLayout& layout, float* input_allocation,
                             float* output_allocation, bool in_place, int rank) {
    const auto offset = static_cast<std::size_t>(rank) * layout.chunk;
    if (!in_place) return {input_allocation, output_allocation, layout.input_count};
    switch (kind) {
    case NcclOpKind::all_gather: return {output_allocation + offset, output_allocation, layout.input_count};
    case NcclOpKind::reduce_scatter: return {input_allocation, input_allocation + offset, layout.input_count};
    default: return {output_allocation, output_allocation, layout.input_count};
    }
}

void launch_nccl_op(NcclOpKind kind, const NcclPlacement& where, const NcclLayout& layout, int rank, int ranks,
                    ncclComm_t comm, cudaStream_t stream) {
    switch (kind) {
    case NcclOpKind::all_reduce:
        SHAKEDOWN_NCCL(ncclAllReduce(where.input, where.output, layout.chunk, ncclFloat, ncclSum, comm, stream));
        break;
    case NcclOpKind::all_gather:
        SHAKEDOWN_NCCL(ncclAllGather(where.input, where.output, layout.chunk, ncclFloat, comm, stream));
        break;
    case NcclOpKind::reduce_scatter:
        SHAKEDOWN_NCCL(ncclReduceScatter(where.input, where.output, layout.chunk, ncclFloat, ncclSum, comm, stream));
        break;
    case NcclOpKind::alltoall:
        SHAKEDOWN_NCCL(ncclGroupStart());
        for (int peer = 0; peer < ranks; ++peer) {
            const auto offset = static_cast<std::size_t>(peer) * layout.chunk;
            SHAKEDOWN_NCCL(ncclSend(where.input + offset, layout.chunk, ncclFloat, peer, comm, stream));
            SHAKEDOWN_NCCL(ncclRecv(where.output + offset, layout.chunk, ncclFloat, peer, comm, stream));
        }
        SHAKEDOWN_NCCL(ncclGroupEnd());
        break;
    case NcclOpKind::broadcast:
        SHAKEDOWN_NCCL(ncclBroadcast(where.input, where.output, layout.chunk, ncclFloat, nccl_root, comm, stream));
        break;
    case NcclOpKind::reduce:
        SHAKEDOWN_NCCL(ncclReduce(where.input, where.output, layout.chunk, ncclFloat, ncclSum, nccl_root, comm, stream));
        break;
    case NcclOpKind::sendrecv: {
        // ring neighbours: send to the next rank, receive from the previous one
        const int next = (rank + 1) % ranks;
        const int previous = (rank - 1 + ranks) % ranks;
        SHAKEDOWN_NCCL(ncclGroupStart());
        SHAKEDOWN_NCCL(ncclSend(where.input, layout.chunk, ncclFloat, next, comm, stream));
        SHAKEDOWN_NCCL(ncclRecv(where.output, layout.chunk, ncclFloat, previous, comm, stream));
        SHAKEDOWN_NCCL(ncclGroupEnd());
        break;
    }
    }
}

}  // namespace shakedown::mpi
