#include "health/network/tcp_interfaces.hpp"

#include "health/network/job_interface.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

namespace shakedown::health {
namespace {

const nlohmann::json* listed(const nlohmann::json& network, const std::string& name) {
    for (const auto& interface : network)
        if (interface.value("name", "") == name) return &interface;
    return nullptr;
}

std::optional<double> line_rate_of(const nlohmann::json* interface) {
    if (interface == nullptr || !interface->value("physical", false)) return std::nullopt;
    const long long mbps = interface->value("speed_mbps", -1LL);
    if (mbps <= 0) return std::nullopt;
    return static_cast<double>(mbps) / 1000.0;
}

TcpEndpoint endpoint_of(const std::string& name, const std::string& ipv4, const nlohmann::json& network) {
    return {name, ipv4, 0, line_rate_of(listed(network, name))};
}

}  // namespace

std::vector<TcpEndpoint> select_tcp_interfaces(const std::vector<std::string>& requested, const nlohmann::json& network) {
    std::vector<TcpEndpoint> endpoints;
    for (const std::string& name : requested) {
        const auto address = ipv4_address_of(name);
        if (!address) throw std::runtime_error(fmt::format("interface '{}' has no IPv4 address on this node", name));
        endpoints.push_back(endpoint_of(name, *address, network));
    }
    if (!requested.empty()) return endpoints;
    for (const auto& interface : network) {
        if (!interface.value("physical", false) || interface.value("operstate", "") != "up") continue;
        const std::string name = interface.value("name", "");
        if (const auto address = ipv4_address_of(name)) endpoints.push_back(endpoint_of(name, *address, network));
    }
    if (!endpoints.empty()) return endpoints;
    const JobInterface job = choose_job_interface("", network);
    endpoints.push_back(endpoint_of(job.name, job.ipv4, network));
    return endpoints;
}

nlohmann::json to_json(const std::vector<TcpEndpoint>& endpoints) {
    nlohmann::json list = nlohmann::json::array();
    for (const TcpEndpoint& endpoint : endpoints)
        list.push_back(
            {{"interface", endpoint.interface},
             {"ipv4", endpoint.ipv4},
             {"port", endpoint.port},
             {"line_rate_gbits", endpoint.line_rate_gbits ? nlohmann::json(*endpoint.line_rate_gbits) : nlohmann::json()}});
    return list;
}

std::vector<TcpEndpoint> endpoints_from(const nlohmann::json& json) {
    std::vector<TcpEndpoint> endpoints;
    for (const auto& entry : json) {
        TcpEndpoint endpoint{entry.at("interface"), entry.at("ipv4"), entry.at("port").get<std::uint16_t>(), std::nullopt};
        if (entry.at("line_rate_gbits").is_number()) endpoint.line_rate_gbits = entry.at("line_rate_gbits").get<double>();
        endpoints.push_back(std::move(endpoint));
    }
    return endpoints;
}

std::vector<std::string> interfaces_in_common(const std::vector<std::vector<TcpEndpoint>>& members) {
    std::vector<std::string> common;
    if (members.empty()) return common;
    for (const TcpEndpoint& candidate : members.front())
        if (std::all_of(members.begin(), members.end(),
                        [&](const auto& endpoints) { return endpoint_on(endpoints, candidate.interface) != nullptr; }))
            common.push_back(candidate.interface);
    return common;
}

const TcpEndpoint* endpoint_on(const std::vector<TcpEndpoint>& endpoints, const std::string& interface) {
    const auto found = std::find_if(endpoints.begin(), endpoints.end(),
                                    [&](const TcpEndpoint& endpoint) { return endpoint.interface == interface; });
    return found != endpoints.end() ? &*found : nullptr;
}

}  // namespace shakedown::health
