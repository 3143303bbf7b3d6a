#include "ib/verbs/endpoint_selection.hpp"

#include "core/errors.hpp"
#include "ib/inventory/sysfs_rdma.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

namespace shakedown::ib {
namespace {

bool is_roce_v2(const GidEntry& entry) { return entry.type.find("v2") != std::string::npos; }

bool is_ipv4_mapped(const Gid& gid) {  // ::ffff:a.b.c.d, the GID of a RoCE v2 IPv4 address
    return std::all_of(gid.begin(), gid.begin() + 10, [](std::uint8_t b) { return b == 0; }) && gid[10] == 0xff &&
           gid[11] == 0xff;
}

std::string gid_choices(const std::vector<GidEntry>& gids) {
    std::vector<std::string> items;
    for (const auto& gid : gids)
        items.push_back(gid.type.empty() ? std::to_string(gid.index) : fmt::format("{} ({})", gid.index, gid.type));
    return items.empty() ? "none" : fmt::format("{}", fmt::join(items, ", "));
}

std::optional<int> automatic_gid(const PortInfo& port, const std::vector<GidEntry>& gids) {
    if (port.link_layer != LinkLayer::ethernet) return std::nullopt;  // InfiniBand: LID routing
    const auto v2_ipv4 =
        std::find_if(gids.begin(), gids.end(), [](const GidEntry& e) { return is_roce_v2(e) && is_ipv4_mapped(e.gid); });
    if (v2_ipv4 != gids.end()) return v2_ipv4->index;
    const auto v2 = std::find_if(gids.begin(), gids.end(), is_roce_v2);
    if (v2 != gids.end()) return v2->index;
    if (!gids.empty()) return gids.front().index;
    return 0;
}

}  // namespace

EndpointRequest endpoint_request(const TestParams& params) {
    return {params.optional_text("device").value_or(""), static_cast<int>(params.optional_integer("port").value_or(0)),
            static_cast<int>(params.optional_integer("gid_index").value_or(-1))};
}

void check_endpoint_on_this_node(const TestParams& params) {
    const auto api = make_system_verbs();
    if (!api->device_names().empty()) (void)resolve_endpoint(*api, endpoint_request(params), -1);
}

EndpointChoice resolve_endpoint(const VerbsApi& api, const EndpointRequest& request, int preferred_numa_node) {
    auto names = api.device_names();
    std::sort(names.begin(), names.end());
    if (names.empty()) throw InputError("no RDMA device on this node");

    EndpointChoice choice;
    if (!request.device.empty()) {
        if (std::find(names.begin(), names.end(), request.device) == names.end())
            throw InputError(fmt::format("RDMA device '{}' does not exist on this node; valid choices: {}", request.device,
                                         fmt::join(names, ", ")));
        choice.device = request.device;
        choice.reason = "given";
    }

    // Describe the candidates once: NUMA node and first ACTIVE port of each device.
    struct Candidate {
        std::string name;
        int numa_node;
        int port_count;
        int first_active_port;
    };
    std::vector<Candidate> candidates;
    for (const auto& name : names) {
        if (!choice.device.empty() && name != choice.device) continue;
        const auto context = api.open(name);
        Candidate candidate{name, context->info().numa_node, context->info().port_count, 0};
        for (int port = 1; port <= candidate.port_count && candidate.first_active_port == 0; ++port)
            if (context->query_port(port).state == "ACTIVE") candidate.first_active_port = port;
        candidates.push_back(candidate);
    }

    const Candidate* picked = &candidates.front();
    if (choice.device.empty()) {
        const auto active_on = [&](int numa) {
            return std::find_if(candidates.begin(), candidates.end(), [&](const Candidate& c) {
                return c.first_active_port != 0 && (numa < 0 || c.numa_node == numa);
            });
        };
        auto found = preferred_numa_node >= 0 ? active_on(preferred_numa_node) : candidates.end();
        if (found != candidates.end()) {
            choice.reason = fmt::format("nearest to NUMA node {}", preferred_numa_node);
        } else if ((found = active_on(-1)) != candidates.end()) {
            choice.reason = preferred_numa_node >= 0
                                ? fmt::format("first with an ACTIVE port (none on NUMA node {})", preferred_numa_node)
                                : "first with an ACTIVE port";
        } else {
            found = candidates.begin();
            choice.reason = "first device (no port is ACTIVE)";
        }
        picked = &*found;
        choice.device = picked->name;
    }
    choice.numa_node = picked->numa_node;

    if (request.port != 0) {
        if (request.port > picked->port_count)
            throw InputError(fmt::format("port {} is out of range for RDMA device '{}': valid ports are 1..{}", request.port,
                                         picked->name, picked->port_count));
        choice.port = request.port;
    } else {
        choice.port = picked->first_active_port != 0 ? picked->first_active_port : 1;
    }

    const auto context = api.open(choice.device);
    choice.port_info = context->query_port(choice.port);
    const auto gids = context->gid_table(choice.port);
    if (request.gid_index >= 0) {
        if (std::none_of(gids.begin(), gids.end(), [&](const GidEntry& e) { return e.index == request.gid_index; }))
            throw InputError(fmt::format("GID index {} is not populated on RDMA device '{}' port {}; valid indices: {}",
                                         request.gid_index, choice.device, choice.port, gid_choices(gids)));
        choice.gid_index = request.gid_index;
    } else {
        choice.gid_index = automatic_gid(choice.port_info, gids);
    }
    return choice;
}

int preferred_numa_node(const std::optional<std::string>& gpu_pci_bus_id) {
    if (gpu_pci_bus_id && !gpu_pci_bus_id->empty())
        if (const int node = pci_numa_node(*gpu_pci_bus_id); node >= 0) return node;
    return current_cpu_numa_node();
}

}  // namespace shakedown::ib
