// Built without libibverbs: no RDMA inventory (the configure summary says why).
#include "inventory/inventory_sections.hpp"

namespace shakedown::inventory_detail {

nlohmann::json rdma_section() { return nlohmann::json::array(); }

}  // namespace shakedown::inventory_detail
