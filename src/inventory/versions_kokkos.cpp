// Compiled when SHAKEDOWN_HAVE_KOKKOS: the Kokkos the kernels were built against
// (Kokkos_Macros.hpp defines KOKKOS_VERSION in 3.x and 4.x alike).
#include "inventory/inventory_sections.hpp"

#include <Kokkos_Macros.hpp>
#include <fmt/format.h>

namespace shakedown::inventory_detail {

std::optional<std::string> kokkos_version() {
    constexpr int code = KOKKOS_VERSION;  // major * 10000 + minor * 100 + patch
    return fmt::format("{}.{}.{}", code / 10000, (code / 100) % 100, code % 100);
}

}  // namespace shakedown::inventory_detail
