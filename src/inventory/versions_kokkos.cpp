// Compiled when SHAKEDOWN_HAVE_KOKKOS: the Kokkos the kernels were built against
// (Kokkos_Macros.hpp defines KOKKOS_VERSION in 3.x and 4.x alike). With a CUDA Kokkos this
// file goes through nvcc_wrapper, which cannot evaluate fmt 9's consteval format strings:
// no fmt here.
#include "inventory/inventory_sections.hpp"

#include <Kokkos_Macros.hpp>

#include <string>

namespace shakedown::inventory_detail {

std::optional<std::string> kokkos_version() {
    constexpr int code = KOKKOS_VERSION;  // major * 10000 + minor * 100 + patch
    return std::to_string(code / 10000) + "." + std::to_string((code / 100) % 100) + "." + std::to_string(code % 100);
}

}  // namespace shakedown::inventory_detail
