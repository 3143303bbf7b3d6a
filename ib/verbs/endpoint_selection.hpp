// Which HCA, port and GID a rank uses: from the test's parameters when given (checked against
// what the node has, with the valid choices named in the error), else the HCA nearest the
// rank's GPU or CPU by NUMA node, its first ACTIVE port, and on RoCE a RoCE v2 GID.
#pragma once

#include "core/params.hpp"
#include "ib/verbs/verbs_api.hpp"

#include <optional>
#include <string>
#include <vector>

namespace shakedown::ib {

struct EndpointRequest {
    std::string device;  // empty: nearest by NUMA
    int port = 0;        // 0: the first ACTIVE port
    int gid_index = -1;  // -1: none on InfiniBand (LID routing), a RoCE v2 GID on Ethernet
};

// The declared "device", "port" and "gid_index" (ib/specs.hpp) as a request.
EndpointRequest endpoint_request(const TestParams& params);

struct EndpointChoice {
    std::string device;
    int port = 1;
    std::optional<int> gid_index;
    PortInfo port_info;
    int numa_node = -1;
    std::string reason;  // "given", "nearest to NUMA node 1", "first device (no NUMA match)"
};

// Throws InputError when a named device, port or GID index does not exist on this node,
// naming the valid choices. `preferred_numa_node` -1: no preference. Needs at least one device.
EndpointChoice resolve_endpoint(const VerbsApi& api, const EndpointRequest& request, int preferred_numa_node);

// A named device, port or GID index checked against this node's devices when it has any
// (InputError naming the valid choices); nothing to check on a node without devices.
void check_endpoint_on_this_node(const TestParams& params);

// NUMA node to prefer for this rank: its GPU's (inventory "gpus"[i].pci_bus_id via sysfs),
// else the node of the CPU it runs on; -1 when unknown.
int preferred_numa_node(const std::optional<std::string>& gpu_pci_bus_id);

}  // namespace shakedown::ib
