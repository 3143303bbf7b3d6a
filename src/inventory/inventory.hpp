// What this node is: CPU, memory, NUMA, PCI, network, RDMA, BLAS, GPUs and the versions of
// every library in use. Collected once per rank (fast), written into the trace's /inventory
// and printed by `shakedown inventory`. Keys other code relies on are listed in
// docs/trace-format.md; sections that a node lacks are present and empty, never missing.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace shakedown {

nlohmann::json collect_inventory();
std::string format_inventory(const nlohmann::json& inventory);  // human-readable, multi-line

}  // namespace shakedown
