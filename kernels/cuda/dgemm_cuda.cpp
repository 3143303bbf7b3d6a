// DGEMM on the bound GPU through cuBLAS (FP64 tensor cores from Ampere on, which cuBLAS
// picks by itself for double), timed with events on the handle's stream.
#include "kernels/dgemm/dgemm_backend.hpp"

#include "kernels/cuda/cublas_handle.hpp"
#include "kernels/cuda/cuda_raii.hpp"

namespace shakedown::kernels {
namespace {

class CublasDgemm final : public DgemmBackend {
public:
    CublasDgemm(std::size_t n, int device)
        : device_(device), select_(device), n_(n), a_(n * n), b_(n * n), c_(n * n) {
        cublas_check(cublasSetStream(handle_.get(), stream_.get()), "cublasSetStream");
    }

    std::string name() const override { return "cublas"; }

    void load(const std::vector<double>& a, const std::vector<double>& b) override {
        DeviceSelection select(device_);
        cuda_check(cudaMemcpy(a_.get(), a.data(), a_.bytes(), cudaMemcpyHostToDevice), "cudaMemcpy(A)");
        cuda_check(cudaMemcpy(b_.get(), b.data(), b_.bytes(), cudaMemcpyHostToDevice), "cudaMemcpy(B)");
    }

    double run_timed() override {
        DeviceSelection select(device_);
        const double alpha = 1.0, beta = 0.0;
        const int n = static_cast<int>(n_);
        EventTimer timer(stream_.get());
        timer.start();
        cublas_check(cublasDgemm(handle_.get(), CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &alpha, a_.get(), n, b_.get(), n,
                                 &beta, c_.get(), n),
                     "cublasDgemm");
        return timer.stop_seconds();
    }

    std::vector<double> result() const override {
        DeviceSelection select(device_);
        std::vector<double> c(n_ * n_);
        cuda_check(cudaMemcpy(c.data(), c_.get(), c_.bytes(), cudaMemcpyDeviceToHost), "cudaMemcpy(C)");
        return c;
    }

    void corrupt(std::size_t row, std::size_t col) override {
        DeviceSelection select(device_);
        double* element = c_.get() + row + col * n_;
        double value = 0.0;
        cuda_check(cudaMemcpy(&value, element, sizeof value, cudaMemcpyDeviceToHost), "cudaMemcpy");
        value = -2.0 * value - 1.0;
        cuda_check(cudaMemcpy(element, &value, sizeof value, cudaMemcpyHostToDevice), "cudaMemcpy");
    }

private:
    int device_;
    DeviceSelection select_;  // everything below lives on `device_`
    std::size_t n_;
    DeviceBuffer<double> a_, b_, c_;
    CudaStream stream_;
    CublasHandle handle_;
};

}  // namespace

std::unique_ptr<DgemmBackend> make_cuda_dgemm(std::size_t n, int device) {
    return std::make_unique<CublasDgemm>(n, device);
}

}  // namespace shakedown::kernels
