// A node's network capacity: the line rates of its physical interfaces that are up and of its
// active RDMA ports; a veth's made-up 10000 Mb/s and the loopback count for nothing.
#include "hardware/network_capacity.hpp"

#include <gtest/gtest.h>

namespace shakedown::hardware {
namespace {

nlohmann::json nic(const std::string& name, double mbps, bool physical, const std::string& state = "up",
                   const std::string& type = "ether") {
    return {{"name", name}, {"speed_mbps", mbps}, {"physical", physical}, {"operstate", state}, {"type", type}};
}

TEST(NetworkCapacity, PhysicalInterfacesThatAreUpAndActivePortsAdd) {
    const nlohmann::json inventory = {
        {"network", {nic("eno1", 25000, true), nic("eno2", 25000, true, "down"), nic("lo", -1, false, "unknown", "loopback"),
                     nic("veth0", 10000, false)}},
        {"rdma", {{{"name", "mlx5_0"}, {"ports", {{{"state", "PORT_ACTIVE"}, {"rate_gbps", 400.0}}}}},
                  {{"name", "mlx5_1"}, {"ports", {{{"state", "PORT_DOWN"}, {"rate_gbps", 400.0}}}}}}}};
    const auto capacity = network_capacity_gbs(inventory);
    ASSERT_TRUE(capacity.has_value());
    EXPECT_DOUBLE_EQ(*capacity, (25.0 + 400.0) / 8.0);
}

TEST(NetworkCapacity, OnlyVirtualInterfacesLeaveItUnknown) {
    const nlohmann::json inventory = {{"network", {nic("eth0", 10000, false), nic("lo", -1, false, "unknown", "loopback")}}};
    EXPECT_FALSE(network_capacity_gbs(inventory).has_value());
    EXPECT_FALSE(network_capacity_gbs(nlohmann::json::object()).has_value());
}

}  // namespace
}  // namespace shakedown::hardware
