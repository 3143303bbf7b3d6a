// The GPU spec table (src/hardware/gpu_specs.yaml, embedded at build time) and its look-up by
// the device's name, without anything CUDA: the analyzer reads the expected NVLink count of a
// part from it (library shakedown_gpu_spec_table), the nominals (hardware/gpu_specs.hpp) the rest.
#pragma once

#include <yaml-cpp/yaml.h>

#include <optional>
#include <string>
#include <string_view>

namespace shakedown::hardware {

// The table text as embedded at build time.
std::string_view embedded_gpu_specs_yaml();

// The first entry of the table's "gpus" one of whose `match` substrings the device name contains
// (case-insensitive); nullopt when none does.
std::optional<YAML::Node> matching_gpu_entry(const YAML::Node& table, std::string_view device_name);

// The NVLink links the part has (its `nvlinks`), with the entry's part name; nullopt for a part
// not in the table or one without a fixed count (PCIe cards, NVLink bridges of 2 or 4 GPUs).
struct PartNvlinks {
    std::string part;
    int links = 0;
};
std::optional<PartNvlinks> part_nvlinks(std::string_view device_name, std::string_view table_yaml = embedded_gpu_specs_yaml());

}  // namespace shakedown::hardware
