// Inputs built so every collective's exact result is known, filled and checked on the GPU
// (no copy of gigabytes back to the host): rank r's input element j is a small integer, so
// float sums over ranks are exact whatever order NCCL adds them in.
#pragma once

#include "mpi/nccl/nccl_ops.hpp"

#include <cuda_runtime.h>

#include <cstddef>
#include <optional>

namespace shakedown::mpi {

struct NcclDataSpec {
    NcclOpKind kind = NcclOpKind::all_reduce;
    int rank = 0;
    int ranks = 1;
    std::size_t chunk = 0;
};

struct NcclWrong {
    unsigned long long count = 0;
    unsigned long long checked = 0;
    std::optional<unsigned long long> first_index;
};

void fill_nccl_input(const NcclDataSpec& spec, float* input, std::size_t count, cudaStream_t stream);

// Counts wrong elements of `output` (waits for the stream). plant_corruption changes one
// element first, as a broken link or GPU would.
NcclWrong count_nccl_wrong(const NcclDataSpec& spec, float* output, std::size_t count, bool plant_corruption,
                           cudaStream_t stream);

}  // namespace shakedown::mpi
