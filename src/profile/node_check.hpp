// What a node has, from its inventory (the node leader's: its NVML view lists every GPU of the
// node whatever each rank's CUDA visibility), and where it differs from its class in the expected
// profile: one line per difference, naming what is missing ("7 of 8 GPUs (H200) found; missing
// 0000:9b:00.0"). The analyzer turns the lines into hardware FAILs; `profile --from` builds a
// class from the same facts.
#pragma once

#include "profile/profile.hpp"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace shakedown::profile {

struct NodeGpu {
    std::string name;
    std::string uuid;
    std::string bus_id;  // lower-case "0000:19:00.0"
    std::optional<double> memory_gib;
    std::optional<int> nvlinks;
    std::optional<int> pcie_generation_max;
    std::optional<int> pcie_width_max;
};

struct NodePort {
    std::string hca;
    int port = 0;
    std::string state;
    std::string link_layer;
    std::optional<double> rate_gbps;
    std::optional<int> mtu;
};

struct NodeNic {
    std::string name;
    int mtu = 0;
    bool up = false;
};

struct NodeFacts {
    std::vector<NodeGpu> gpus;  // NVML's view when NVML answered, else what CUDA showed the rank
    std::vector<NodePort> ports;
    std::vector<NodeNic> nics;
    std::string cpu_model;
    int cpu_cores = 0;
    double memory_gib = 0.0;
    std::vector<NodePort> active_ports() const;
};

NodeFacts node_facts(const nlohmann::json& inventory);

// Every way `facts` falls short of `expected` (empty: the node is what was bought).
std::vector<std::string> differences(const NodeClass& expected, const NodeFacts& facts);

}  // namespace shakedown::profile
