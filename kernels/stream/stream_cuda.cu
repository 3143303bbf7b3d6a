// STREAM on a CUDA GPU, timed with events on one stream. Each kernel launches with its own row
// of stream_launch_table (kernels/stream/stream_launch.hpp: threads per block, double or double2
// loads, vectors per thread, grid covering the array or a grid-stride loop over k blocks per SM),
// because the shape that makes triad fast starves dot. The kernels below are templates over the
// element-wise operation and the vector type, so any valid row launches without new code.
// Dot reduces per block (warp shuffles, then one shared value per warp) and finishes the few
// partial sums on the host, inside the timed window as BabelStream does.
#include "kernels/stream/stream_backend.hpp"
#include "kernels/stream/stream_launch.hpp"

#include "gpu/cuda_owners.hpp"

#include <algorithm>
#include <stdexcept>
#include <vector>

namespace shakedown::kernels {
namespace {

constexpr int check_block_size = 256;

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

__global__ void init_kernel(double* a, double* b, double* c, std::size_t n) {
    const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
    if (i < n) {
        a[i] = stream_start_a;
        b[i] = stream_start_b;
        c[i] = stream_start_c;
    }
}

struct DeviceMismatch {
    unsigned long long index;
    double value;
};
__global__ void check_kernel(const double* x, std::size_t n, double gold, double tolerance, unsigned long long* count,
                             DeviceMismatch* recorded, unsigned long long cap) {
    const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
    if (i >= n || fabs(x[i] - gold) <= tolerance * fabs(gold)) return;
    const unsigned long long slot = atomicAdd(count, 1ull);
    if (slot < cap) recorded[slot] = {i, x[i]};
}

unsigned grid_of(std::size_t items, int per_block) {
    return static_cast<unsigned>(std::max<std::size_t>(1, (items + per_block - 1) / per_block));
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

class CudaStreamBackend final : public StreamBackend {
public:
    CudaStreamBackend(std::size_t elements, int device)
        : device_(device), select_(device), n_(elements), a_(elements), b_(elements), c_(elements) {
        cudaDeviceProp props{};
        SHAKEDOWN_CUDA(cudaGetDeviceProperties(&props, device));
        sm_count_ = props.multiProcessorCount;
        for (const auto& shape : stream_launch_table) {
            if (const std::string problem = launch_shape_problem(shape); !problem.empty())
                throw std::logic_error("stream launch table, " + std::string(info(shape.kernel).name) + ": " + problem);
            blocks_[static_cast<int>(shape.kernel)] = static_cast<unsigned>(launch_blocks(shape, n_, sm_count_));
        }
        partial_ = gpu::DeviceBuffer<double>(blocks_[static_cast<int>(StreamKernel::dot)]);
        partial_host_.resize(partial_.size());
    }

    std::string name() const override { return "cuda"; }

    void initialise() override {
        gpu::DeviceSelection select(device_);
        init_kernel<<<grid_of(n_, check_block_size), check_block_size, 0, stream_.get()>>>(a_.get(), b_.get(), c_.get(), n_);
        SHAKEDOWN_CUDA_LAUNCH("init kernel launch");
        stream_.synchronize();
    }

    double run_timed(StreamKernel kernel, double& dot_result) override {
        gpu::DeviceSelection select(device_);
        const StreamLaunchShape& shape = launch_shape(kernel);
        const unsigned blocks = blocks_[static_cast<int>(kernel)];
        cudaStream_t stream = stream_.get();
        gpu::EventTimer timer(stream);
        timer.start();
        switch (kernel) {
        case StreamKernel::copy: launch_elementwise<CopyOp>(shape, blocks, stream, a_.get(), b_.get(), c_.get(), n_); break;
        case StreamKernel::scale: launch_elementwise<ScaleOp>(shape, blocks, stream, a_.get(), b_.get(), c_.get(), n_); break;
        case StreamKernel::add: launch_elementwise<AddOp>(shape, blocks, stream, a_.get(), b_.get(), c_.get(), n_); break;
        case StreamKernel::triad: launch_elementwise<TriadOp>(shape, blocks, stream, a_.get(), b_.get(), c_.get(), n_); break;
        case StreamKernel::dot:
            if (shape.vector_width == 2)
                dot_stride<double2><<<blocks, shape.threads_per_block, 0, stream>>>(a_.get(), b_.get(), partial_.get(), n_);
            else
                dot_stride<double><<<blocks, shape.threads_per_block, 0, stream>>>(a_.get(), b_.get(), partial_.get(), n_);
            break;
        }
        SHAKEDOWN_CUDA_LAUNCH("stream kernel launch");
        if (kernel == StreamKernel::dot) {
            // The partial sums' trip to the host is part of the dot kernel's time, as in BabelStream.
            SHAKEDOWN_CUDA(cudaMemcpyAsync(partial_host_.data(), partial_.get(), partial_.bytes(), cudaMemcpyDeviceToHost, stream));
        }
        const double seconds = timer.stop_seconds();
        if (kernel == StreamKernel::dot) {
            double sum = 0.0;
            for (const double part : partial_host_) sum += part;
            dot_result = sum;
        }
        return seconds;
    }

    StreamArrayCheck check(StreamArray array, double gold, double tolerance, std::size_t cap) const override {
        gpu::DeviceSelection select(device_);
        gpu::DeviceBuffer<unsigned long long> count(1);
        gpu::DeviceBuffer<DeviceMismatch> recorded(std::max<std::size_t>(cap, 1));
        SHAKEDOWN_CUDA(cudaMemsetAsync(count.get(), 0, count.bytes(), stream_.get()));
        check_kernel<<<grid_of(n_, check_block_size), check_block_size, 0, stream_.get()>>>(
            buffer(array), n_, gold, tolerance, count.get(), recorded.get(), cap);
        SHAKEDOWN_CUDA_LAUNCH("check kernel launch");
        unsigned long long mismatches = 0;
        std::vector<DeviceMismatch> found(recorded.size());
        SHAKEDOWN_CUDA(cudaMemcpyAsync(&mismatches, count.get(), count.bytes(), cudaMemcpyDeviceToHost, stream_.get()));
        SHAKEDOWN_CUDA(cudaMemcpyAsync(found.data(), recorded.get(), recorded.bytes(), cudaMemcpyDeviceToHost, stream_.get()));
        stream_.synchronize();
        StreamArrayCheck result;
        result.mismatches = mismatches;
        for (std::size_t k = 0; k < std::min<std::size_t>(mismatches, cap); ++k)
            result.first.push_back({static_cast<std::size_t>(found[k].index), found[k].value});
        std::sort(result.first.begin(), result.first.end(), [](auto& x, auto& y) { return x.index < y.index; });
        return result;
    }

    void corrupt(StreamArray array, std::size_t index) override {
        gpu::DeviceSelection select(device_);
        double value = 0.0;
        SHAKEDOWN_CUDA(cudaMemcpy(&value, buffer(array) + index, sizeof value, cudaMemcpyDeviceToHost));
        value = -2.0 * value - 1.0;
        SHAKEDOWN_CUDA(cudaMemcpy(buffer(array) + index, &value, sizeof value, cudaMemcpyHostToDevice));
    }

    std::vector<std::pair<std::string, std::string>> launch_parameters() const override {
        std::vector<std::pair<std::string, std::string>> parameters;
        for (const auto& shape : stream_launch_table)
            parameters.emplace_back("launch_" + std::string(info(shape.kernel).name), describe(shape, n_, sm_count_));
        return parameters;
    }

private:
    double* buffer(StreamArray array) const {
        return array == StreamArray::a ? a_.get() : array == StreamArray::b ? b_.get() : c_.get();
    }

    int device_;
    gpu::DeviceSelection select_;  // the buffers below are allocated on `device_`
    std::size_t n_;
    gpu::DeviceBuffer<double> a_, b_, c_;
    gpu::DeviceBuffer<double> partial_;
    std::vector<double> partial_host_;  // the dot's partial sums, one per block of its grid
    gpu::CudaStream stream_;
    int sm_count_ = 0;
    unsigned blocks_[stream_kernel_table.size()] = {};  // per kernel, indexed by StreamKernel
};

}  // namespace

std::unique_ptr<StreamBackend> make_cuda_stream(std::size_t elements, int device) {
    return std::make_unique<CudaStreamBackend>(elements, device);
}

}  // namespace shakedown::kernels
