// STREAM on a CUDA GPU. One element per thread in blocks of 256, timed with events on one
// stream. Blocks of 256 measured best on an H200 (bench/gpu/kernel_probe.cu, 2026-11-30: triad
// 4381 GB/s against 4014 with blocks of 1024 and 4181 with the best grid-stride shape);
// dot reduces per block in shared memory and finishes the few partial sums on the host.
#include "kernels/stream/stream_backend.hpp"

#include "kernels/cuda/cuda_raii.hpp"

#include <algorithm>
#include <vector>

namespace shakedown::kernels {
namespace {

constexpr int block_size = 256;

__global__ void init_kernel(double* a, double* b, double* c, std::size_t n) {
    const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
    if (i < n) {
        a[i] = stream_start_a;
        b[i] = stream_start_b;
        c[i] = stream_start_c;
    }
}
__global__ void copy_kernel(const double* a, double* c, std::size_t n) {
    const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
    if (i < n) c[i] = a[i];
}
__global__ void scale_kernel(double* b, const double* c, double s, std::size_t n) {
    const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
    if (i < n) b[i] = s * c[i];
}
__global__ void add_kernel(const double* a, const double* b, double* c, std::size_t n) {
    const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}
__global__ void triad_kernel(double* a, const double* b, const double* c, double s, std::size_t n) {
    const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
    if (i < n) a[i] = b[i] + s * c[i];
}
__global__ void dot_kernel(const double* a, const double* b, double* partial, std::size_t n) {
    __shared__ double sums[block_size];
    double sum = 0.0;
    for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
         i += static_cast<std::size_t>(blockDim.x) * gridDim.x)
        sum += a[i] * b[i];
    sums[threadIdx.x] = sum;
    for (int offset = blockDim.x / 2; offset > 0; offset /= 2) {
        __syncthreads();
        if (threadIdx.x < offset) sums[threadIdx.x] += sums[threadIdx.x + offset];
    }
    if (threadIdx.x == 0) partial[blockIdx.x] = sums[0];
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

class CudaStreamBackend final : public StreamBackend {
public:
    CudaStreamBackend(std::size_t elements, int device)
        : device_(device), select_(device), n_(elements), a_(elements), b_(elements), c_(elements) {
        cudaDeviceProp props{};
        cuda_check(cudaGetDeviceProperties(&props, device), "cudaGetDeviceProperties");
        dot_blocks_ = props.multiProcessorCount * 4;
        partial_ = DeviceBuffer<double>(dot_blocks_);
        blocks_ = static_cast<unsigned>((n_ + block_size - 1) / block_size);
    }

    std::string name() const override { return "cuda"; }

    void initialise() override {
        DeviceSelection select(device_);
        init_kernel<<<blocks_, block_size, 0, stream_.get()>>>(a_.get(), b_.get(), c_.get(), n_);
        cuda_check(cudaGetLastError(), "init kernel launch");
        stream_.synchronize();
    }

    double run_timed(StreamKernel kernel, double& dot_result) override {
        DeviceSelection select(device_);
        EventTimer timer(stream_.get());
        std::vector<double> partial_host;
        timer.start();
        switch (kernel) {
        case StreamKernel::copy: copy_kernel<<<blocks_, block_size, 0, stream_.get()>>>(a_.get(), c_.get(), n_); break;
        case StreamKernel::scale:
            scale_kernel<<<blocks_, block_size, 0, stream_.get()>>>(b_.get(), c_.get(), stream_scalar, n_);
            break;
        case StreamKernel::add:
            add_kernel<<<blocks_, block_size, 0, stream_.get()>>>(a_.get(), b_.get(), c_.get(), n_);
            break;
        case StreamKernel::triad:
            triad_kernel<<<blocks_, block_size, 0, stream_.get()>>>(a_.get(), b_.get(), c_.get(), stream_scalar, n_);
            break;
        case StreamKernel::dot:
            dot_kernel<<<dot_blocks_, block_size, 0, stream_.get()>>>(a_.get(), b_.get(), partial_.get(), n_);
            break;
        }
        cuda_check(cudaGetLastError(), "stream kernel launch");
        if (kernel == StreamKernel::dot) {
            // The partial sums' trip to the host is part of the dot kernel's time, as in BabelStream.
            partial_host.resize(partial_.size());
            cuda_check(cudaMemcpyAsync(partial_host.data(), partial_.get(), partial_.bytes(), cudaMemcpyDeviceToHost,
                                       stream_.get()),
                       "cudaMemcpyAsync(dot partials)");
        }
        const double seconds = timer.stop_seconds();
        if (kernel == StreamKernel::dot) {
            double sum = 0.0;
            for (const double part : partial_host) sum += part;
            dot_result = sum;
        }
        return seconds;
    }

    StreamArrayCheck check(StreamArray array, double gold, double tolerance, std::size_t cap) const override {
        DeviceSelection select(device_);
        DeviceBuffer<unsigned long long> count(1);
        DeviceBuffer<DeviceMismatch> recorded(std::max<std::size_t>(cap, 1));
        cuda_check(cudaMemsetAsync(count.get(), 0, count.bytes(), stream_.get()), "cudaMemsetAsync");
        check_kernel<<<blocks_, block_size, 0, stream_.get()>>>(buffer(array), n_, gold, tolerance, count.get(),
                                                                 recorded.get(), cap);
        cuda_check(cudaGetLastError(), "check kernel launch");
        unsigned long long mismatches = 0;
        std::vector<DeviceMismatch> found(recorded.size());
        cuda_check(cudaMemcpyAsync(&mismatches, count.get(), count.bytes(), cudaMemcpyDeviceToHost, stream_.get()),
                   "cudaMemcpyAsync(count)");
        cuda_check(cudaMemcpyAsync(found.data(), recorded.get(), recorded.bytes(), cudaMemcpyDeviceToHost, stream_.get()),
                   "cudaMemcpyAsync(mismatches)");
        stream_.synchronize();
        StreamArrayCheck result;
        result.mismatches = mismatches;
        for (std::size_t k = 0; k < std::min<std::size_t>(mismatches, cap); ++k)
            result.first.push_back({static_cast<std::size_t>(found[k].index), found[k].value});
        std::sort(result.first.begin(), result.first.end(), [](auto& x, auto& y) { return x.index < y.index; });
        return result;
    }

    void corrupt(StreamArray array, std::size_t index) override {
        DeviceSelection select(device_);
        double value = 0.0;
        cuda_check(cudaMemcpy(&value, buffer(array) + index, sizeof value, cudaMemcpyDeviceToHost), "cudaMemcpy");
        value = -2.0 * value - 1.0;
        cuda_check(cudaMemcpy(buffer(array) + index, &value, sizeof value, cudaMemcpyHostToDevice), "cudaMemcpy");
    }

private:
    double* buffer(StreamArray array) const {
        return array == StreamArray::a ? a_.get() : array == StreamArray::b ? b_.get() : c_.get();
    }

    int device_;
    DeviceSelection select_;  // the buffers below are allocated on `device_`
    std::size_t n_;
    DeviceBuffer<double> a_, b_, c_;
    DeviceBuffer<double> partial_;
    CudaStream stream_;
    unsigned blocks_ = 0;
    int dot_blocks_ = 0;
};

}  // namespace

std::unique_ptr<StreamBackend> make_cuda_stream(std::size_t elements, int device) {
    return std::make_unique<CudaStreamBackend>(elements, device);
}

}  // namespace shakedown::kernels
