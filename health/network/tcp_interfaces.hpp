// Which interfaces tcp_bandwidth measures and what each node tells the others about them: its
// address on each, the port it listens on, the line rate where a physical NIC reports one.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace shakedown::health {

struct TcpEndpoint {
    std::string interface;
    std::string ipv4;
    std::uint16_t port = 0;
    std::optional<double> line_rate_gbits;  // physical interfaces with a known speed only
};

// `requested` by name, or (empty) every physical interface that is up with an IPv4 address, else
// the job interface as network_mtu chooses it. `network` is the inventory's network array.
// Throws std::runtime_error for a requested interface without an IPv4 address.
std::vector<TcpEndpoint> select_tcp_interfaces(const std::vector<std::string>& requested, const nlohmann::json& network);

nlohmann::json to_json(const std::vector<TcpEndpoint>& endpoints);
std::vector<TcpEndpoint> endpoints_from(const nlohmann::json& json);

// The interfaces every member listed, in the first member's order: what all pairs can measure.
std::vector<std::string> interfaces_in_common(const std::vector<std::vector<TcpEndpoint>>& members);

const TcpEndpoint* endpoint_on(const std::vector<TcpEndpoint>& endpoints, const std::string& interface);

}  // namespace shakedown::health
