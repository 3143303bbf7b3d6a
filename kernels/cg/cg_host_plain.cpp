// The host CG where Kokkos is not built: the same backend (cg_host_backend.hpp) over plain
// serial loops, so cg_fp64 still runs and validates on the host.
#include "kernels/cg/cg_host_backend.hpp"

namespace shakedown::kernels::cg {
namespace {

struct PlainLoops {
    static std::string name() { return "host-serial"; }

    template <class F>
    static void cells(const CellBox& box, const F& f) {
        for (auto k = static_cast<std::int64_t>(box.lo[2]); k < static_cast<std::int64_t>(box.hi[2]); ++k)
            for (auto j = static_cast<std::int64_t>(box.lo[1]); j < static_cast<std::int64_t>(box.hi[1]); ++j)
                for (auto i = static_cast<std::int64_t>(box.lo[0]); i < static_cast<std::int64_t>(box.hi[0]); ++i) f(i, j, k);
    }

    template <class F>
    static double sum(const CellBox& box, const F& f) {
        double total = 0.0;
        cells(box, [&](std::int64_t i, std::int64_t j, std::int64_t k) { total += f(i, j, k); });
        return total;
    }
};

}  // namespace

std::unique_ptr<CgBackend> make_host_cg(const LocalExtent& local) { return std::make_unique<HostCg<PlainLoops>>(local); }

}  // namespace shakedown::kernels::cg
