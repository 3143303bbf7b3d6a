// The most a node can send to another node: the line rates of its physical network interfaces
// that are up (sysfs speed) and of its active RDMA ports, added. Payload over any one pair of
// ranks on two nodes cannot exceed it, so an inter-node figure above it is not credible. A
// virtual interface (veth, bridge, bond member without a device) reports a speed sysfs made up
// (veth: 10000 Mb/s, while memcpy between namespaces runs faster) and counts for nothing; with
// none left the capacity is unknown. Counting an IPoIB interface and its HCA port twice only
// loosens the bound.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>

namespace shakedown::hardware {

// GB/s (10^9 bytes per second) from an inventory (inventory's "network" and "rdma" sections).
std::optional<double> network_capacity_gbs(const nlohmann::json& inventory);

}  // namespace shakedown::hardware
