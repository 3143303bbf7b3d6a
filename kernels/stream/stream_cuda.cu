// STREAM on a CUDA GPU, timed with events on one stream. Each kernel launches with its own row
// of stream_launch_table (kernels/stream/stream_launch.hpp: threads per block, double or double2
// loads, vectors per thread, grid covering the array or a grid-stride loop over k blocks per SM),
// because the shape that makes triad fast starves dot. The kernels and their launch by table row
// are in stream_kernels.cuh, which bench/gpu/kernel_probe.cu includes too. Dot reduces per block
// and finishes the few partial sums on the host, inside the timed window as BabelStream does.
#include "kernels/stream/stream_backend.hpp"
#include "kernels/stream/stream_kernels.cuh"
#include "kernels/stream/stream_launch.hpp"

#include "gpu/cuda_owners.hpp"

#include <algorithm>
#include <stdexcept>
#include <vector>

namespace shakedown::kernels {
namespace {

constexpr int check_block_size = 256;

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
