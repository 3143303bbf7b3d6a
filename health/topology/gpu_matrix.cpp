#include "health/topology/gpu_matrix.hpp"

#include "placement/gpu_binding.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace shakedown::health {

std::string path_label(std::optional<nvml_abi::GpuTopologyLevel> level) {
    if (!level) return "?";
    switch (*level) {
        case nvml_abi::topology_internal: return "BRD";
        case nvml_abi::topology_single: return "PIX";
        case nvml_abi::topology_multiple: return "PXB";
        case nvml_abi::topology_hostbridge: return "PHB";
        case nvml_abi::topology_node: return "NODE";
        case nvml_abi::topology_system: return "SYS";
    }
    return "?";
}

std::string link_label(unsigned nvlinks, std::optional<nvml_abi::GpuTopologyLevel> level) {
    return nvlinks > 0 ? fmt::format("NV{}", nvlinks) : path_label(level);
}

unsigned links_to(const std::vector<std::string>& remote_bus_ids, const std::string& peer_bus_id) {
    const std::string peer = placement::normalize_bus_id(peer_bus_id);
    return static_cast<unsigned>(std::count_if(remote_bus_ids.begin(), remote_bus_ids.end(),
                                               [&](const std::string& id) { return placement::normalize_bus_id(id) == peer; }));
}

GpuMatrix gpu_matrix(const Nvml& nvml) {
    GpuMatrix matrix;
    std::vector<NvmlDevice> devices;
    for (unsigned i = 0; i < nvml.device_count(); ++i) {
        auto device = nvml.device(i);
        if (!device) continue;
        const auto pci = device->pci_info();
        matrix.gpus.push_back({i, pci ? placement::normalize_bus_id(pci->bus_id) : "", device->name().value_or("GPU")});
        devices.push_back(*device);
    }
    const std::size_t n = devices.size();
    std::vector<std::vector<std::string>> remote(n);
    std::vector<unsigned> switch_links(n, 0);  // links ending at something that is not one of these GPUs
    for (std::size_t i = 0; i < n; ++i) {
        remote[i] = devices[i].nvlink_remote_bus_ids();
        unsigned to_gpus = 0;
        for (std::size_t j = 0; j < n; ++j) to_gpus += i == j ? 0 : links_to(remote[i], matrix.gpus[j].bus_id);
        switch_links[i] = static_cast<unsigned>(remote[i].size()) - to_gpus;
        matrix.nvswitch_links += switch_links[i];
    }
    matrix.labels.assign(n, std::vector<std::string>(n, "X"));
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < n; ++j) {
            if (i == j) continue;
            unsigned links = links_to(remote[i], matrix.gpus[j].bus_id);
            // Through NVSwitches (HGX boards) every pair gets the links both GPUs have to the
            // switches, as nvidia-smi shows it.
            if (links == 0) links = std::min(switch_links[i], switch_links[j]);
            matrix.labels[i][j] = link_label(links, devices[i].common_ancestor(devices[j]));
        }
    return matrix;
}

std::string describe_pairs(const GpuMatrix& matrix) {
    std::string text;
    for (std::size_t i = 0; i < matrix.gpus.size(); ++i)
        for (std::size_t j = i + 1; j < matrix.gpus.size(); ++j)
            text += fmt::format("{}GPU{}-GPU{}:{}", text.empty() ? "" : " ", matrix.gpus[i].nvml_index,
                                matrix.gpus[j].nvml_index, matrix.labels[i][j]);
    return text;
}

}  // namespace shakedown::health
