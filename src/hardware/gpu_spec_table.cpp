#include "hardware/gpu_spec_table.hpp"

#include "core/printable_text.hpp"

#include <algorithm>

namespace shakedown::hardware {

std::optional<YAML::Node> matching_gpu_entry(const YAML::Node& table, std::string_view device_name) {
    const std::string name = ascii_lower(device_name);
    for (const auto& entry : table["gpus"])
        for (const auto& pattern : entry["match"])
            if (name.find(pattern.as<std::string>()) != std::string::npos) return entry;
    return std::nullopt;
}

std::optional<PartNvlinks> part_nvlinks(std::string_view device_name, std::string_view table_yaml) {
    const auto entry = matching_gpu_entry(YAML::Load(std::string(table_yaml)), device_name);
    if (!entry || !(*entry)["nvlinks"]) return std::nullopt;
    return PartNvlinks{(*entry)["part"].as<std::string>(), (*entry)["nvlinks"].as<int>()};
}

}  // namespace shakedown::hardware
