#include "inventory/inventory_sections.hpp"

namespace shakedown::inventory_detail {

std::optional<std::string> nccl_version() { return std::nullopt; }

}  // namespace shakedown::inventory_detail
