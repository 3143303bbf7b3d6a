// Built when Kokkos is not: the host stencil waives itself, and says why if called anyway.
#include "kernels/stencil/stencil_backend.hpp"

#include <stdexcept>

namespace shakedown::kernels {

std::unique_ptr<StencilBackend> make_host_stencil(const LocalExtent&) { throw std::runtime_error("built without Kokkos"); }
std::unique_ptr<StencilBackend> make_kokkos_device_stencil(const LocalExtent&, int) {
    throw std::runtime_error("built without Kokkos");
}

}  // namespace shakedown::kernels
