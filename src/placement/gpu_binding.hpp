// Ties the CUDA ordinal a rank is bound to to the same GPU elsewhere (its UUID, its NVML device:
// NVML counts in PCI bus order, CUDA in its own order and under CUDA_VISIBLE_DEVICES), through
// the rank's inventory, which matched them by UUID.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>

namespace shakedown::placement {

// UUID of CUDA device `ordinal` as this rank sees it (its own inventory: CUDA_VISIBLE_DEVICES
// applies), "" without a GPU or when the inventory does not say. The UUID names the GPU for
// telemetry whatever each rank's visibility (NVML indexes all of the node's GPUs).
std::string gpu_uuid_for(const nlohmann::json& inventory, std::optional<int> ordinal);

// Model of CUDA device `ordinal` as this rank's inventory names it ("NVIDIA H200"), "" when unknown.
std::string gpu_name_for(const nlohmann::json& inventory, std::optional<int> ordinal);

// NVML index of CUDA device `ordinal` per the inventory; nothing when it does not say.
std::optional<unsigned> nvml_index_for(const nlohmann::json& inventory, int ordinal);

// "0000:19:00.0" of CUDA device `ordinal` per the inventory; nothing when it does not say.
std::optional<std::string> pci_bus_id_for(const nlohmann::json& inventory, int ordinal);

// NUMA node of CUDA device `ordinal`: the inventory's PCI entry, else sysfs; -1 when unknown.
int gpu_numa_node(const nlohmann::json& inventory, int ordinal, const std::string& sys_root = "/sys");

// Lower-case "dddd:bb:dd.f" from NVML's "00000000:19:00.0" or any other spelling of a bus id.
std::string normalize_bus_id(const std::string& bus_id);

}  // namespace shakedown::placement
