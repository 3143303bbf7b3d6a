// KokkosBlas::gemm in Kokkos::Cuda (CudaSpace, LayoutLeft: column-major like the inputs), built
// in every Kokkos build; only a Kokkos with the CUDA backend has the device engine.
#include "kernels/dgemm/dgemm_kokkos_device.hpp"

#include "core/clock.hpp"

#include <Kokkos_Core.hpp>

#include <stdexcept>
#include <string>

#if defined(KOKKOS_ENABLE_CUDA)
#include <KokkosBlas3_gemm.hpp>
#endif

namespace shakedown::kernels {

#if defined(KOKKOS_ENABLE_CUDA)
namespace {

using DeviceMatrix = Kokkos::View<double**, Kokkos::LayoutLeft, Kokkos::CudaSpace>;
using ConstHostMatrix = Kokkos::View<const double**, Kokkos::LayoutLeft, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>;
using HostMatrix = Kokkos::View<double**, Kokkos::LayoutLeft, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>;

class KokkosCudaDgemm final : public gemm::DgemmEngine {
public:
    explicit KokkosCudaDgemm(std::size_t n) : n_(n), a_("dgemm_a", n, n), b_("dgemm_b", n, n), c_("dgemm_c", n, n) {}

    std::string name() const override { return "kokkos-blas-Cuda"; }

    void load(const std::vector<double>& a, const std::vector<double>& b) override {
        Kokkos::deep_copy(a_, ConstHostMatrix(a.data(), n_, n_));
        Kokkos::deep_copy(b_, ConstHostMatrix(b.data(), n_, n_));
        space_.fence();
    }

    double run_timed() override {
        space_.fence();
        const Stopwatch watch;
        KokkosBlas::gemm(space_, "N", "N", 1.0, a_, b_, 0.0, c_);
        space_.fence();
        return watch.seconds();
    }

    std::vector<double> result() const override {
        std::vector<double> out(n_ * n_);
        Kokkos::deep_copy(HostMatrix(out.data(), n_, n_), c_);
        return out;
    }

    // Public: nvcc refuses extended lambdas in private member functions.
    void corrupt(std::size_t row, std::size_t col) override {
        const DeviceMatrix c = c_;
        Kokkos::parallel_for("dgemm_corrupt", Kokkos::RangePolicy<Kokkos::Cuda>(space_, 0, 1),
                             KOKKOS_LAMBDA(int) { c(row, col) = -2.0 * c(row, col) - 1.0; });
        space_.fence();
    }

private:
    std::size_t n_;
    Kokkos::Cuda space_;
    DeviceMatrix a_, b_, c_;
};

}  // namespace

std::unique_ptr<gemm::DgemmEngine> make_kokkos_device_dgemm(std::size_t n, int device) {
    if (Kokkos::Cuda().cuda_device() != device)
        throw std::runtime_error("dgemm_fp64: Kokkos runs on CUDA device " + std::to_string(Kokkos::Cuda().cuda_device()) +
                                 ", this rank is bound to " + std::to_string(device));
    return std::make_unique<KokkosCudaDgemm>(n);
}
#else
std::unique_ptr<gemm::DgemmEngine> make_kokkos_device_dgemm(std::size_t, int) {
    throw std::runtime_error("this Kokkos has no CUDA backend");
}
#endif

}  // namespace shakedown::kernels
