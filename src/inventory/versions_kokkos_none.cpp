#include "inventory/inventory_sections.hpp"

namespace shakedown::inventory_detail {

std::optional<std::string> kokkos_version() { return std::nullopt; }

}  // namespace shakedown::inventory_detail
