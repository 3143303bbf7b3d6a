// Host DGEMM through KokkosKernels: with Debian's BLAS TPL this calls the system BLAS
// (OpenBLAS when installed), so the figure is what applications linking BLAS get,
// including the core OpenBLAS chose (recorded by the test).
#include "gemm/dgemm_engine.hpp"

#include "core/clock.hpp"

#include <KokkosBlas3_gemm.hpp>
#include <Kokkos_Core.hpp>

namespace shakedown::gemm {
namespace {

using Matrix = Kokkos::View<double**, Kokkos::LayoutLeft, Kokkos::HostSpace>;
using ConstHostMatrix = Kokkos::View<const double**, Kokkos::LayoutLeft, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>;

class KokkosDgemm final : public DgemmEngine {
public:
    explicit KokkosDgemm(std::size_t n) : n_(n), a_("dgemm_a", n, n), b_("dgemm_b", n, n), c_("dgemm_c", n, n) {}

    std::string name() const override { return "kokkos-blas"; }

    void load(const std::vector<double>& a, const std::vector<double>& b) override {
        Kokkos::deep_copy(a_, ConstHostMatrix(a.data(), n_, n_));
        Kokkos::deep_copy(b_, ConstHostMatrix(b.data(), n_, n_));
    }

    double run_timed() override {
        const Stopwatch watch;
        KokkosBlas::gemm("N", "N", 1.0, a_, b_, 0.0, c_);
        Kokkos::fence();
        return watch.seconds();
    }

    std::vector<double> result() const override { return {c_.data(), c_.data() + n_ * n_}; }

    void corrupt(std::size_t row, std::size_t col) override { c_(row, col) = -2.0 * c_(row, col) - 1.0; }

private:
    std::size_t n_;
    Matrix a_, b_, c_;
};

}  // namespace

std::unique_ptr<DgemmEngine> make_host_dgemm(std::size_t n) { return std::make_unique<KokkosDgemm>(n); }

}  // namespace shakedown::gemm
