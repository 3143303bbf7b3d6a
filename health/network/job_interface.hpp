// The interface a job's traffic uses between nodes: named by the `interface` parameter, else
// the interface of the default route, else the first interface that is up and not loopback.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>

namespace shakedown::health {

struct JobInterface {
    std::string name;
    std::string ipv4;     // dotted quad of its first IPv4 address
    std::string chosen_by;  // "parameter", "default route", "first up interface", "loopback"
    long long mtu = -1;     // from the kernel for this process's network namespace
};

// The inventory's network array, or (a context without inventory: unit tests) this node's now.
nlohmann::json inventory_network(const nlohmann::json& inventory);

// Interface of the IPv4 default route from a /proc/net/route text; nothing without one.
std::optional<std::string> default_route_interface(const std::string& proc_net_route_text);

// `network` is the inventory's network array. Throws std::runtime_error when the requested
// interface does not exist or has no IPv4 address.
JobInterface choose_job_interface(const std::string& requested, const nlohmann::json& network);

std::optional<std::string> ipv4_address_of(const std::string& interface);

// The interface's MTU as the kernel reports it to this process (SIOCGIFMTU), which is right in
// any network namespace: /sys/class/net shows the namespace of whoever mounted /sys, which in
// a container or a namespaced node is not necessarily this process's.
std::optional<long long> interface_mtu(const std::string& interface);

}  // namespace shakedown::health
