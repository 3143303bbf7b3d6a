#include "placement/gpu_binding.hpp"

#include "core/printable_text.hpp"

#include <algorithm>
#include <fstream>

namespace shakedown::placement {
namespace {

const nlohmann::json* gpu_entry(const nlohmann::json& inventory, int ordinal) {
    if (!inventory.contains("gpus") || !inventory["gpus"].is_array()) return nullptr;
    for (const auto& gpu : inventory["gpus"])
        if (gpu.value("index", -1) == ordinal) return &gpu;
    return nullptr;
}

}  // namespace

std::string gpu_uuid_for(const nlohmann::json& inventory, std::optional<int> ordinal) {
    const auto* gpu = ordinal ? gpu_entry(inventory, *ordinal) : nullptr;
    if (gpu == nullptr || !gpu->contains("uuid") || !(*gpu)["uuid"].is_string()) return "";
    return (*gpu)["uuid"].get<std::string>();
}

std::string gpu_name_for(const nlohmann::json& inventory, std::optional<int> ordinal) {
    const auto* gpu = ordinal ? gpu_entry(inventory, *ordinal) : nullptr;
    if (gpu == nullptr || !gpu->contains("name") || !(*gpu)["name"].is_string()) return "";
    return (*gpu)["name"].get<std::string>();
}

std::optional<unsigned> nvml_index_for(const nlohmann::json& inventory, int ordinal) {
    const auto* gpu = gpu_entry(inventory, ordinal);
    if (gpu == nullptr || !gpu->contains("nvml") || !(*gpu)["nvml"].contains("nvml_index")) return std::nullopt;
    return (*gpu)["nvml"]["nvml_index"].get<unsigned>();
}

std::optional<std::string> pci_bus_id_for(const nlohmann::json& inventory, int ordinal) {
    const auto* gpu = gpu_entry(inventory, ordinal);
    if (gpu == nullptr || !gpu->contains("pci_bus_id") || !(*gpu)["pci_bus_id"].is_string()) return std::nullopt;
    return normalize_bus_id((*gpu)["pci_bus_id"].get<std::string>());
}

int gpu_numa_node(const nlohmann::json& inventory, int ordinal, const std::string& sys_root) {
    const auto bus_id = pci_bus_id_for(inventory, ordinal);
    if (!bus_id) return -1;
    if (inventory.contains("pci") && inventory["pci"].contains("devices"))
        for (const auto& device : inventory["pci"]["devices"])
            if (normalize_bus_id(device.value("bus_id", "")) == *bus_id && device.value("numa_node", -1) >= 0)
                return device["numa_node"].get<int>();
    std::ifstream file(sys_root + "/bus/pci/devices/" + *bus_id + "/numa_node");
    int node = -1;
    return file >> node ? node : -1;
}

std::string normalize_bus_id(const std::string& bus_id) {
    std::string id = ascii_lower(bus_id);
    // NVML's domain has 8 hex digits; sysfs and hwloc use 4 ("0000:19:00.0" is 12 characters).
    constexpr std::size_t canonical_length = 12;
    if (id.size() > canonical_length) id = id.substr(id.size() - canonical_length);
    return id;
}

}  // namespace shakedown::placement
