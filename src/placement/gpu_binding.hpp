// Ties the CUDA ordinal a rank is bound to to the NVML device of the same GPU (NVML counts
// in PCI bus order, CUDA in its own order and under CUDA_VISIBLE_DEVICES), through the
// inventory, which matched them by UUID.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>

namespace shakedown::placement {

// NVML index of CUDA device `ordinal` per the inventory; nothing when it does not say.
std::optional<unsigned> nvml_index_for(const nlohmann::json& inventory, int ordinal);

// "0000:19:00.0" of CUDA device `ordinal` per the inventory; nothing when it does not say.
std::optional<std::string> pci_bus_id_for(const nlohmann::json& inventory, int ordinal);

// NUMA node of CUDA device `ordinal`: the inventory's PCI entry, else sysfs; -1 when unknown.
int gpu_numa_node(const nlohmann::json& inventory, int ordinal, const std::string& sys_root = "/sys");

// Lower-case "dddd:bb:dd.f" from NVML's "00000000:19:00.0" or any other spelling of a bus id.
std::string normalize_bus_id(const std::string& bus_id);

}  // namespace shakedown::placement
