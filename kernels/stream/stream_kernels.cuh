// STREAM's CUDA kernels and their launch by a stream_launch_table row, in one place for the
// product's backend (stream_cuda.cu) and bench/gpu/kernel_probe.cu, which times these very
// kernels against other launch shapes. Templates over the element-wise operation and the vector
// type (double or double2), so any valid row launches without new code. Dot reduces per block
// (warp shuffles, then one shared value per warp) into one partial sum per block.
// Internal linkage (unnamed namespace): every .cu that includes this compiles its own copy.
#pragma once

#include "kernels/stream/stream_kernels.hpp"
#include "kernels/stream/stream_launch.hpp"

#include <cuda_runtime.h>

#include <cstddef>

namespace shakedown::kernels {
namespace {

__device__ inline double2 operator+(double2 x, double2 y) { return make_double2(x.x + y.x, x.y + y.y); }
__device__ inline double2 operator*(double s, double2 y) { return make_double2(s * y.x, s * y.y); }

template <class T>
constexpr int doubles_in = static_cast<int>(sizeof(T) / sizeof(double));

// The element-wise kernels as operations on element (or vector) i of the three arrays.
struct CopyOp {
    template <class T>
    __device__ static void at(T* __restrict__ a, T* __restrict__, T* __restrict__ c, std::size_t i) { c[i] = a[i]; }
};
struct ScaleOp {
    template <class T>
    __device__ static void at(T* __restrict__, T* __restrict__ b, T* __restrict__ c, std::size_t i) {
        b[i] = stream_scalar * c[i];
    }
};
struct AddOp {
    template <class T>
    __device__ static void at(T* __restrict__ a, T* __restrict__ b, T* __restrict__ c, std::size_t i) {
        c[i] = a[i] + b[i];
    }
};
struct TriadOp {
    template <class T>
    __device__ static void at(T* __restrict__ a, T* __restrict__ b, T* __restrict__ c, std::size_t i) {
        a[i] = b[i] + stream_scalar * c[i];
    }
};

// With vectors of 2, an odd length leaves the last element: thread 0 of block 0 does it.
template <class Op, class T>
__device__ inline void element_tail(double* a, double* b, double* c, std::size_t n) {
    if constexpr (doubles_in<T> > 1) {
        const std::size_t full = n / doubles_in<T> * doubles_in<T>;
        if (blockIdx.x == 0 && threadIdx.x < n - full) Op::at(a, b, c, full + threadIdx.x);
    }
}

// Grid covers the array: each thread its `per_thread` vectors, block-strided (coalesced).
template <class Op, class T, int per_thread>
__global__ void elementwise_cover(double* __restrict__ a, double* __restrict__ b, double* __restrict__ c, std::size_t n) {
    const std::size_t vectors = n / doubles_in<T>;
    const std::size_t first = blockIdx.x * static_cast<std::size_t>(blockDim.x) * per_thread + threadIdx.x;
#pragma unroll
    for (int k = 0; k < per_thread; ++k) {
        const std::size_t i = first + static_cast<std::size_t>(k) * blockDim.x;
        if (i < vectors) Op::at(reinterpret_cast<T*>(a), reinterpret_cast<T*>(b), reinterpret_cast<T*>(c), i);
    }
    element_tail<Op, T>(a, b, c, n);
}

template <class Op, class T>
__global__ void elementwise_stride(double* __restrict__ a, double* __restrict__ b, double* __restrict__ c, std::size_t n) {
    const std::size_t vectors = n / doubles_in<T>;
    for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < vectors;
         i += static_cast<std::size_t>(blockDim.x) * gridDim.x)
        Op::at(reinterpret_cast<T*>(a), reinterpret_cast<T*>(b), reinterpret_cast<T*>(c), i);
    element_tail<Op, T>(a, b, c, n);
}

__device__ inline double warp_sum(double v) {
    for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
    return v;
}
// The block's sum, valid in thread 0 (blockDim.x is a multiple of 32: the launch table says so).
__device__ inline double block_sum(double v) {
    __shared__ double warp_sums[32];
    v = warp_sum(v);
    if ((threadIdx.x & 31) == 0) warp_sums[threadIdx.x / 32] = v;
    __syncthreads();
    if (threadIdx.x < 32) v = warp_sum(threadIdx.x < blockDim.x / 32 ? warp_sums[threadIdx.x] : 0.0);
    return v;
}
__device__ inline double product(double x, double y) { return x * y; }
__device__ inline double product(double2 x, double2 y) { return fma(x.y, y.y, x.x * y.x); }

template <class T>
__global__ void dot_stride(const double* __restrict__ a, const double* __restrict__ b, double* __restrict__ partial,
                           std::size_t n) {
    const std::size_t vectors = n / doubles_in<T>;
    double sum = 0.0;
    if constexpr (doubles_in<T> > 1) {  // the odd element of an odd length
        const std::size_t full = vectors * doubles_in<T>;
        if (blockIdx.x == 0 && threadIdx.x < n - full) sum = a[full + threadIdx.x] * b[full + threadIdx.x];
    }
    for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < vectors;
         i += static_cast<std::size_t>(blockDim.x) * gridDim.x)
        sum += product(reinterpret_cast<const T*>(a)[i], reinterpret_cast<const T*>(b)[i]);
    sum = block_sum(sum);
    if (threadIdx.x == 0) partial[blockIdx.x] = sum;
}

// One element-wise kernel launched with its table row.
template <class Op>
void launch_elementwise(const StreamLaunchShape& shape, unsigned blocks, cudaStream_t stream, double* a, double* b,
                        double* c, std::size_t n) {
    const int threads = shape.threads_per_block;
    const bool wide = shape.vector_width == 2;
    if (shape.blocks_per_sm > 0) {
        if (wide) elementwise_stride<Op, double2><<<blocks, threads, 0, stream>>>(a, b, c, n);
        else elementwise_stride<Op, double><<<blocks, threads, 0, stream>>>(a, b, c, n);
    } else if (shape.vectors_per_thread == 2) {
        if (wide) elementwise_cover<Op, double2, 2><<<blocks, threads, 0, stream>>>(a, b, c, n);
        else elementwise_cover<Op, double, 2><<<blocks, threads, 0, stream>>>(a, b, c, n);
    } else {
        if (wide) elementwise_cover<Op, double2, 1><<<blocks, threads, 0, stream>>>(a, b, c, n);
        else elementwise_cover<Op, double, 1><<<blocks, threads, 0, stream>>>(a, b, c, n);
    }
}

}  // namespace
}  // namespace shakedown::kernels
