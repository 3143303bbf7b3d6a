// The GPU LU: A and b generated on the device from the seed (the host's entries, lu_math.hpp), the
// factorization (cuSOLVER's getrf of the whole matrix, or the look-ahead LU of
// lu_cuda_lookahead.cu: `gpu_algorithm`) + cuSOLVER's getrs timed with events on one stream, then,
// as HPL does, A generated again from the seed over its factors (so the device holds one matrix
// and n can be that much larger), the residual with cuBLAS dgemv, the inf-norms by cuBLAS idamax
// and a row-sum kernel.
#include "kernels/lu/lu_cuda_lookahead.hpp"
#include "kernels/lu/lu_cusolver.hpp"
#include "kernels/lu/lu_engine.hpp"
#include "kernels/lu/lu_math.hpp"

#include "gpu/cublas_handles.hpp"
#include "gpu/cuda_owners.hpp"

#include <fmt/format.h>

#include <optional>
#include <stdexcept>
#include <string>

namespace shakedown::kernels::lu {
namespace {

__global__ void fill_matrix(double* a, std::uint64_t seed, std::uint64_t n) {
    const std::uint64_t total = n * n;
    for (std::uint64_t k = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x; k < total;
         k += static_cast<std::uint64_t>(gridDim.x) * blockDim.x)
        a[k] = input_entry(seed, k % n, k / n, n);
}

__global__ void fill_rhs(double* b, double* x, std::uint64_t seed, std::uint64_t n) {
    for (std::uint64_t i = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x; i < n;
         i += static_cast<std::uint64_t>(gridDim.x) * blockDim.x) {
        b[i] = input_entry(seed, i, n, n);
        x[i] = b[i];
    }
}

// One thread per row of the column-major matrix: neighbouring threads read neighbouring rows.
__global__ void row_abs_sums(const double* a, double* sums, std::uint64_t n) {
    for (std::uint64_t i = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x; i < n;
         i += static_cast<std::uint64_t>(gridDim.x) * blockDim.x) {
        double sum = 0.0;
        for (std::uint64_t j = 0; j < n; ++j) sum += fabs(a[j * n + i]);
        sums[i] = sum;
    }
}

__global__ void add_one(double* element) { *element += 1.0; }

class CusolverLu final : public LuEngine {
public:
    CusolverLu(int device, std::size_t n, GpuLuAlgorithm algorithm, int block)
        : device_(device), selection_(device), n_(static_cast<int>(n)), algorithm_(algorithm), block_(block),
          a_(n * n), b_(n), x_(n), r_(n), row_sums_(n), pivots_(n), info_(2) {
        SHAKEDOWN_CUSOLVER(cusolverDnSetStream(solver_.get(), stream_.get()));
        SHAKEDOWN_CUBLAS(cublasSetStream(blas_.get(), stream_.get()));
        if (algorithm_ == GpuLuAlgorithm::lookahead) {
            lookahead_.emplace(n_, block_);
            return;
        }
        int work = 0;
        SHAKEDOWN_CUSOLVER(cusolverDnDgetrf_bufferSize(solver_.get(), n_, n_, a_.get(), n_, &work));
        work_ = gpu::DeviceBuffer<double>(static_cast<std::size_t>(work));
    }

    std::string name() const override {
        return algorithm_ == GpuLuAlgorithm::lookahead ? fmt::format("{}, block {}", lookahead_name, block_)
                                                       : std::string(cusolver_name);
    }

    LuOutcome solve(std::uint64_t seed, bool corrupt) override {
        const gpu::DeviceSelection selection(device_);
        const auto n = static_cast<std::uint64_t>(n_);
        fill_matrix<<<1024, 256, 0, stream_.get()>>>(a_.get(), seed, n);
        SHAKEDOWN_CUDA_LAUNCH("fill_matrix");
        fill_rhs<<<1024, 256, 0, stream_.get()>>>(b_.get(), x_.get(), seed, n);
        SHAKEDOWN_CUDA_LAUNCH("fill_rhs");
        LuOutcome outcome;
        gpu::CudaEvent start, stop;
        start.record(stream_.get());
        if (lookahead_)
            lookahead_->factor(stream_.get(), a_.get(), pivots_.get(), info_.get());
        else
            SHAKEDOWN_CUSOLVER(cusolverDnDgetrf(solver_.get(), n_, n_, a_.get(), n_, work_.get(), pivots_.get(), info_.get()));
        if (corrupt) {
            add_one<<<1, 1, 0, stream_.get()>>>(a_.get() + n * n / 2 + n / 2);  // a diagonal element of U
            SHAKEDOWN_CUDA_LAUNCH("add_one");
        }
        SHAKEDOWN_CUSOLVER(cusolverDnDgetrs(solver_.get(), CUBLAS_OP_N, n_, 1, a_.get(), n_, pivots_.get(), x_.get(), n_,
                                            info_.get() + 1));
        stop.record(stream_.get());
        outcome.seconds = stop.seconds_since(start);
        int infos[2] = {0, 0};  // getrf's, getrs's
        SHAKEDOWN_CUDA(cudaMemcpy(infos, info_.get(), sizeof infos, cudaMemcpyDeviceToHost));
        if (infos[1] != 0) throw std::runtime_error(fmt::format("cusolverDnDgetrs returned info {}", infos[1]));
        outcome.info = infos[0];
        if (outcome.info != 0) return outcome;

        // r = A x - b with A generated again over its factors; inf-norms through idamax (a 1-based index).
        fill_matrix<<<1024, 256, 0, stream_.get()>>>(a_.get(), seed, n);
        SHAKEDOWN_CUDA_LAUNCH("fill_matrix");
        SHAKEDOWN_CUDA(cudaMemcpyAsync(r_.get(), b_.get(), n * sizeof(double), cudaMemcpyDeviceToDevice, stream_.get()));
        const double plus = 1.0, minus = -1.0;
        SHAKEDOWN_CUBLAS(cublasDgemv(blas_.get(), CUBLAS_OP_N, n_, n_, &plus, a_.get(), n_, x_.get(), 1, &minus,
                                     r_.get(), 1));
        row_abs_sums<<<1024, 256, 0, stream_.get()>>>(a_.get(), row_sums_.get(), n);
        SHAKEDOWN_CUDA_LAUNCH("row_abs_sums");
        outcome.residual_norm = inf_norm(r_.get());
        outcome.matrix_norm = inf_norm(row_sums_.get());
        outcome.solution_norm = inf_norm(x_.get());
        outcome.rhs_norm = inf_norm(b_.get());
        return outcome;
    }

private:
    double inf_norm(const double* vector) {
        int index = 0;
        SHAKEDOWN_CUBLAS(cublasIdamax(blas_.get(), n_, vector, 1, &index));
        double value = 0.0;
        SHAKEDOWN_CUDA(cudaMemcpy(&value, vector + (index - 1), sizeof(double), cudaMemcpyDeviceToHost));
        return fabs(value);
    }

    int device_;
    gpu::DeviceSelection selection_;
    int n_;
    GpuLuAlgorithm algorithm_;
    int block_;
    gpu::CudaStream stream_;
    CusolverHandle solver_;
    gpu::CublasHandle blas_;
    gpu::DeviceBuffer<double> a_, b_, x_, r_, row_sums_, work_;
    gpu::DeviceBuffer<int> pivots_, info_;
    std::optional<CudaLookaheadLu> lookahead_;  // its second stream, handles and panel workspace
};

}  // namespace

std::unique_ptr<LuEngine> make_gpu_lu(int device, std::size_t n, GpuLuAlgorithm algorithm, int block) {
    return std::make_unique<CusolverLu>(device, n, algorithm, block);
}

bool gpu_lu_built() { return true; }

}  // namespace shakedown::kernels::lu
