// DGEMM on the bound GPU through cuBLAS (FP64 tensor cores from Ampere on, which cuBLAS
// picks by itself for double), timed with events on the handle's stream.
#include "gemm/dgemm_engine.hpp"

#include "gpu/cublas_handles.hpp"
#include "gpu/cuda_owners.hpp"

namespace shakedown::gemm {
namespace {

class CublasDgemm final : public DgemmEngine {
public:
    CublasDgemm(std::size_t n, int device)
        : device_(device), select_(device), n_(n), a_(n * n), b_(n * n), c_(n * n) {
        SHAKEDOWN_CUBLAS(cublasSetStream(handle_.get(), stream_.get()));
    }

    std::string name() const override { return "cublas"; }

    void load(const std::vector<double>& a, const std::vector<double>& b) override {
        gpu::DeviceSelection select(device_);
        SHAKEDOWN_CUDA(cudaMemcpy(a_.get(), a.data(), a_.bytes(), cudaMemcpyHostToDevice));
        SHAKEDOWN_CUDA(cudaMemcpy(b_.get(), b.data(), b_.bytes(), cudaMemcpyHostToDevice));
    }

    double run_timed() override {
        gpu::DeviceSelection select(device_);
        const double alpha = 1.0, beta = 0.0;
        const int n = static_cast<int>(n_);
        gpu::EventTimer timer(stream_.get());
        timer.start();
        SHAKEDOWN_CUBLAS(cublasDgemm(handle_.get(), CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &alpha, a_.get(), n, b_.get(), n,
                                 &beta, c_.get(), n));
        return timer.stop_seconds();
    }

    std::vector<double> result() const override {
        gpu::DeviceSelection select(device_);
        std::vector<double> c(n_ * n_);
        SHAKEDOWN_CUDA(cudaMemcpy(c.data(), c_.get(), c_.bytes(), cudaMemcpyDeviceToHost));
        return c;
    }

    void corrupt(std::size_t row, std::size_t col) override {
        gpu::DeviceSelection select(device_);
        double* element = c_.get() + row + col * n_;
        double value = 0.0;
        SHAKEDOWN_CUDA(cudaMemcpy(&value, element, sizeof value, cudaMemcpyDeviceToHost));
        value = -2.0 * value - 1.0;
        SHAKEDOWN_CUDA(cudaMemcpy(element, &value, sizeof value, cudaMemcpyHostToDevice));
    }

private:
    int device_;
    gpu::DeviceSelection select_;  // everything below lives on `device_`
    std::size_t n_;
    gpu::DeviceBuffer<double> a_, b_, c_;
    gpu::CudaStream stream_;
    gpu::CublasHandle handle_;
};

}  // namespace

std::unique_ptr<DgemmEngine> make_cuda_dgemm(std::size_t n, int device) {
    return std::make_unique<CublasDgemm>(n, device);
}

}  // namespace shakedown::gemm
