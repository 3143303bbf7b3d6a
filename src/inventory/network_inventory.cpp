// Network interfaces from /sys/class/net: what the kernel negotiated (MTU, speed, state).
#include "inventory/inventory_sections.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>

namespace shakedown::inventory_detail {
namespace {

std::optional<std::string> attribute(const std::filesystem::path& interface, const char* name) {
    std::ifstream file(interface / name);
    std::string value;
    if (!std::getline(file, value)) return std::nullopt;  // e.g. speed of a down or virtual link
    return value;
}

long long attribute_number(const std::filesystem::path& interface, const char* name, long long fallback) {
    const auto text = attribute(interface, name);
    if (!text) return fallback;
    try {
        return std::stoll(*text);
    } catch (const std::exception&) {
        return fallback;
    }
}

// ARPHRD_* values from <linux/if_arp.h> that matter for acceptance.
std::string link_type(long long arphrd) {
    switch (arphrd) {
        case 1: return "ether";
        case 32: return "infiniband";
        case 772: return "loopback";
        default: return std::to_string(arphrd);
    }
}

}  // namespace

nlohmann::json network_section(const std::string& sys_class_net) {
    std::vector<std::filesystem::path> interfaces;
    std::error_code error;
    for (const auto& entry : std::filesystem::directory_iterator(sys_class_net, error))
        interfaces.push_back(entry.path());
    std::sort(interfaces.begin(), interfaces.end());

    nlohmann::json network = nlohmann::json::array();
    for (const auto& interface : interfaces) {
        long long speed = attribute_number(interface, "speed", -1);
        if (speed < 0) speed = -1;  // unknown: loopback, virtual, or link down
        network.push_back({{"name", interface.filename().string()},
                           {"mtu", attribute_number(interface, "mtu", -1)},
                           {"speed_mbps", speed},
                           {"operstate", attribute(interface, "operstate").value_or("unknown")},
                           {"address", attribute(interface, "address").value_or("")},
                           {"type", link_type(attribute_number(interface, "type", -1))},
                           // A NIC has a device behind it; veth, bridges and loopback do not.
                           {"physical", std::filesystem::exists(interface / "device", error)}});
    }
    return network;
}

}  // namespace shakedown::inventory_detail
