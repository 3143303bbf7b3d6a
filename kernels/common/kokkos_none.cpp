// Built when Kokkos is not: STREAM and the stencil fall back to plain C++; host DGEMM
// (KokkosKernels' BLAS) waives itself, and says why if called anyway.
#include "kernels/common/placement.hpp"
#include "kernels/dgemm/dgemm_backend.hpp"

#include <stdexcept>

namespace shakedown::kernels {

bool kokkos_kernels_built() { return false; }
std::unique_ptr<DgemmBackend> make_host_dgemm(std::size_t) { throw std::runtime_error("built without Kokkos"); }

}  // namespace shakedown::kernels

#include "kernels/stencil/stencil_backend.hpp"

namespace shakedown::kernels {
std::unique_ptr<StencilBackend> make_host_stencil(const LocalExtent&) { throw std::runtime_error("built without Kokkos"); }
}  // namespace shakedown::kernels
