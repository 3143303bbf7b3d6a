#include "health/network/job_interface.hpp"
#include "health/network/path_mtu_probe.hpp"
#include "inventory/inventory_sections.hpp"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sys/ioctl.h>

#include <fmt/format.h>

#include <fstream>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <system_error>

namespace shakedown::health {
namespace {

std::string read_file(const char* path) {
    std::ifstream file(path);
    std::ostringstream text;
    text << file.rdbuf();
    return text.str();
}

bool is_up_non_loopback(const nlohmann::json& interface) {
    return interface.value("operstate", "") == "up" && interface.value("type", "") != "loopback" &&
           interface.value("name", "") != "lo";
}

}  // namespace

nlohmann::json inventory_network(const nlohmann::json& inventory) {
    if (inventory.contains("network") && inventory["network"].is_array()) return inventory["network"];
    return inventory_detail::network_section();
}

std::optional<std::string> default_route_interface(const std::string& proc_net_route_text) {
    // Columns: Iface Destination Gateway Flags RefCnt Use Metric Mask ...; hex, host order.
    std::istringstream lines(proc_net_route_text);
    std::string line;
    std::getline(lines, line);  // header
    while (std::getline(lines, line)) {
        std::istringstream fields(line);
        std::string iface, destination, gateway, flags, refcnt, use, metric, mask;
        if (!(fields >> iface >> destination >> gateway >> flags >> refcnt >> use >> metric >> mask)) continue;
        if (destination == "00000000" && mask == "00000000") return iface;
    }
    return std::nullopt;
}

std::optional<std::string> ipv4_address_of(const std::string& interface) {
    ifaddrs* raw = nullptr;
    if (::getifaddrs(&raw) != 0) return std::nullopt;
    const std::unique_ptr<ifaddrs, decltype(&::freeifaddrs)> list(raw, &::freeifaddrs);
    for (const ifaddrs* entry = raw; entry != nullptr; entry = entry->ifa_next) {
        if (entry->ifa_addr == nullptr || entry->ifa_addr->sa_family != AF_INET || interface != entry->ifa_name) continue;
        char text[INET_ADDRSTRLEN] = {};
        const auto* address = reinterpret_cast<const sockaddr_in*>(entry->ifa_addr);
        if (::inet_ntop(AF_INET, &address->sin_addr, text, sizeof text) != nullptr) return std::string(text);
    }
    return std::nullopt;
}

std::optional<long long> interface_mtu(const std::string& interface) {
    if (interface.empty() || interface.size() >= IFNAMSIZ) return std::nullopt;
    try {
        const UdpSocket socket;  // any socket of this namespace can ask
        ifreq request{};
        interface.copy(request.ifr_name, IFNAMSIZ - 1);
        if (::ioctl(socket.fd(), SIOCGIFMTU, &request) != 0) return std::nullopt;
        return request.ifr_mtu;
    } catch (const std::system_error&) {
        return std::nullopt;
    }
}

JobInterface choose_job_interface(const std::string& requested, const nlohmann::json& network) {
    JobInterface chosen;
    if (!requested.empty()) {
        chosen = {requested, "", "parameter"};
    } else if (auto route = default_route_interface(read_file("/proc/net/route"))) {
        chosen = {*route, "", "default route"};
    } else {
        chosen = {"lo", "", "loopback"};
        for (const auto& interface : network)
            if (is_up_non_loopback(interface)) {
                chosen = {interface.value("name", ""), "", "first up interface"};
                break;
            }
    }
    const auto address = ipv4_address_of(chosen.name);
    if (!address)
        throw std::runtime_error(fmt::format("interface '{}' ({}) has no IPv4 address on this node", chosen.name,
                                             chosen.chosen_by));
    chosen.ipv4 = *address;
    chosen.mtu = interface_mtu(chosen.name).value_or(-1);
    return chosen;
}

}  // namespace shakedown::health
