#include "hardware/network_capacity.hpp"

namespace shakedown::hardware {

std::optional<double> network_capacity_gbs(const nlohmann::json& inventory) {
    double gbits = 0.0;
    for (const auto& nic : inventory.value("network", nlohmann::json::array())) {
        if (!nic.value("physical", false) || nic.value("operstate", "") != "up") continue;
        const auto type = nic.value("type", "");
        if (type != "ether" && type != "infiniband") continue;
        const double mbps = nic.value("speed_mbps", -1.0);
        if (mbps > 0.0) gbits += mbps / 1000.0;
    }
    for (const auto& hca : inventory.value("rdma", nlohmann::json::array()))
        for (const auto& port : hca.value("ports", nlohmann::json::array()))
            if (port.value("state", "") == "PORT_ACTIVE" && port.value("rate_gbps", 0.0) > 0.0)
                gbits += port.value("rate_gbps", 0.0);
    if (!(gbits > 0.0)) return std::nullopt;
    return gbits / 8.0;
}

}  // namespace shakedown::hardware
