#include "mpi/nccl/nccl_data.hpp"

#include "gpu/cuda_check.hpp"
#include "gpu/cuda_owners.hpp"

namespace shakedown::mpi {
namespace {

constexpr int threads = 256;
constexpr unsigned long long no_index = ~0ULL;

struct Counters {
    unsigned long long wrong;
    unsigned long long first;
};

__host__ __device__ float contribution(int rank, unsigned long long j) {
    return static_cast<float>(rank + 1) + static_cast<float>(j % 13);
}
__host__ __device__ float reduced(int ranks, unsigned long long j) {
    return static_cast<float>(ranks) * static_cast<float>(ranks + 1) / 2.0f + static_cast<float>(ranks) * static_cast<float>(j % 13);
}
// alltoall: what rank `from` sends to rank `to` at element j of that block.
__host__ __device__ float addressed(int from, int to, unsigned long long j) {
    return static_cast<float>((static_cast<unsigned long long>(from) * 131 + static_cast<unsigned long long>(to) * 7 + j % 4093) % 4093);
}

__device__ float input_value(const NcclDataSpec& s, unsigned long long j) {
    if (s.kind == NcclOpKind::alltoall) return addressed(s.rank, static_cast<int>(j / s.chunk), j % s.chunk);
    return contribution(s.rank, j);
}

__device__ float expected_value(const NcclDataSpec& s, unsigned long long i) {
    switch (s.kind) {
    case NcclOpKind::all_reduce:
    case NcclOpKind::reduce: return reduced(s.ranks, i);
    case NcclOpKind::all_gather: return contribution(static_cast<int>(i / s.chunk), i % s.chunk);
    case NcclOpKind::reduce_scatter: return reduced(s.ranks, static_cast<unsigned long long>(s.rank) * s.chunk + i);
    case NcclOpKind::alltoall: return addressed(static_cast<int>(i / s.chunk), s.rank, i % s.chunk);
    case NcclOpKind::broadcast: return contribution(nccl_root, i);
    case NcclOpKind::sendrecv: return contribution((s.rank - 1 + s.ranks) % s.ranks, i);
    }
    return -1.0f;
}

__global__ void fill_kernel(NcclDataSpec spec, float* input, unsigned long long count) {
    for (unsigned long long j = blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x; j < count;
         j += static_cast<unsigned long long>(gridDim.x) * blockDim.x)
        input[j] = input_value(spec, j);
}

__global__ void check_kernel(NcclDataSpec spec, const float* output, unsigned long long count, Counters* counters) {
    unsigned long long wrong = 0;
    unsigned long long first = no_index;
    for (unsigned long long i = blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x; i < count;
         i += static_cast<unsigned long long>(gridDim.x) * blockDim.x) {
        if (output[i] != expected_value(spec, i)) {
            ++wrong;
            if (first == no_index) first = i;
        }
    }
    if (wrong > 0) {
        atomicAdd(&counters->wrong, wrong);
        atomicMin(&counters->first, first);
    }
}

unsigned int blocks_for(std::size_t count) {
    const auto needed = (count + threads - 1) / threads;
    return static_cast<unsigned int>(needed < 65536 ? (needed == 0 ? 1 : needed) : 65536);
}

}  // namespace

void fill_nccl_input(const NcclDataSpec& spec, float* input, std::size_t count, cudaStream_t stream) {
    fill_kernel<<<blocks_for(count), threads, 0, stream>>>(spec, input, count);
    SHAKEDOWN_CUDA(cudaGetLastError());
}

NcclWrong count_nccl_wrong(const NcclDataSpec& spec, float* output, std::size_t count, bool plant_corruption,
                           cudaStream_t stream) {
    NcclWrong result;
    if (spec.kind == NcclOpKind::reduce && spec.rank != nccl_root) return result;  // only the root has a result
    if (plant_corruption && count > 0) {
        const float wrong_value = -7.0f;  // no input or result is negative
        SHAKEDOWN_CUDA(cudaMemcpyAsync(output + count / 2, &wrong_value, sizeof wrong_value, cudaMemcpyHostToDevice, stream));
    }
    gpu::DeviceBuffer<std::byte> counters(sizeof(Counters));
    const Counters initial{0, no_index};
    SHAKEDOWN_CUDA(cudaMemcpyAsync(counters.get(), &initial, sizeof initial, cudaMemcpyHostToDevice, stream));
    check_kernel<<<blocks_for(count), threads, 0, stream>>>(spec, output, count, counters.as<Counters>());
    SHAKEDOWN_CUDA(cudaGetLastError());
    Counters found{};
    SHAKEDOWN_CUDA(cudaMemcpyAsync(&found, counters.get(), sizeof found, cudaMemcpyDeviceToHost, stream));
    SHAKEDOWN_CUDA(cudaStreamSynchronize(stream));
    result.count = found.wrong;
    result.checked = count;
    if (found.wrong > 0) result.first_index = found.first;
    return result;
}

}  // namespace shakedown::mpi
