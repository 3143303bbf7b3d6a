// The host CG through Kokkos, explicitly on the host execution space: these loops stay host
// code (and read host memory) in a Kokkos built with a GPU backend too.
#include "kernels/cg/cg_host_backend.hpp"

#include <Kokkos_Core.hpp>

namespace shakedown::kernels::cg {
namespace {

struct KokkosHostLoops {
    using Space = Kokkos::DefaultHostExecutionSpace;
    using Cells = Kokkos::MDRangePolicy<Space, Kokkos::Rank<3, Kokkos::Iterate::Left, Kokkos::Iterate::Left>,
                                        Kokkos::IndexType<std::int64_t>>;

    static std::string name() { return std::string("kokkos-") + Space::name(); }

    static Cells policy(const CellBox& box) {
        const auto lo = [&](int d) { return static_cast<std::int64_t>(box.lo[d]); };
        const auto hi = [&](int d) { return static_cast<std::int64_t>(box.hi[d]); };
        return Cells(Space(), {lo(0), lo(1), lo(2)}, {hi(0), hi(1), hi(2)});
    }

    template <class F>
    static void cells(const CellBox& box, const F& f) {
        if (box.empty()) return;
        Kokkos::parallel_for("cg_cells", policy(box), [=](std::int64_t i, std::int64_t j, std::int64_t k) { f(i, j, k); });
        Space().fence();
    }

    template <class F>
    static double sum(const CellBox& box, const F& f) {
        double total = 0.0;
        if (box.empty()) return total;
        Kokkos::parallel_reduce(
            "cg_sum", policy(box), [=](std::int64_t i, std::int64_t j, std::int64_t k, double& partial) { partial += f(i, j, k); },
            total);
        return total;
    }
};

}  // namespace

std::unique_ptr<CgBackend> make_host_cg(const LocalExtent& local) { return std::make_unique<HostCg<KokkosHostLoops>>(local); }

}  // namespace shakedown::kernels::cg
