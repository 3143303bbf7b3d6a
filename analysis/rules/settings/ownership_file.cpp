#include "analysis/rules/settings/ownership_file.hpp"

#include "analysis/rules/settings/yaml_fields.hpp"
#include "core/input_file.hpp"
#include "core/input_limits.hpp"
#include "core/yaml_document.hpp"

#include <fmt/format.h>

#include <set>

namespace shakedown::analysis {

OwnershipInputs parse_ownership(const std::string& yaml, const std::string& source) {
    const YAML::Node root = load_yaml_document(yaml, source);
    const YamlFields fields(source);
    if (!root.IsMap()) fields.reject(root, "expected a mapping of purchase_per_node, depreciation_months, ...");
    OwnershipInputs inputs;
    inputs.source = source;
    const std::set<std::string> known = {"purchase_per_node", "depreciation_months", "hosting_per_node_month", "pue",
                                         "energy_per_kwh",    "node_power_w"};
    for (const auto& entry : root) {
        const std::string key = fields.key(entry.first, "the ownership file");
        if (!known.count(key))
            fields.reject(entry.first, fmt::format("unknown key '{}' (expected purchase_per_node, depreciation_months, "
                                                   "hosting_per_node_month, pue, energy_per_kwh, node_power_w)",
                                                   key));
    }
    auto required = [&](const char* key, double low, double high, bool zero_allowed) {
        const YAML::Node node = root[key];
        if (!node) fields.reject(root, fmt::format("'{}' is missing", key));
        const double value = fields.number(node, key);
        if (value < low || value > high || (!zero_allowed && value == 0.0))
            fields.reject(node, fmt::format("{}: expected a number {} {:g} and up to {:g}, got {}", key,
                                            zero_allowed ? "from" : "above", low, high, node.Scalar()));
        return value;
    };
    inputs.purchase_per_node = required("purchase_per_node", 0.0, 1e10, false);
    inputs.depreciation_months = required("depreciation_months", 0.0, 600.0, false);
    inputs.hosting_per_node_month = required("hosting_per_node_month", 0.0, 1e9, true);
    inputs.pue = required("pue", 1.0, 5.0, true);
    if (root["energy_per_kwh"]) inputs.energy_per_kwh = required("energy_per_kwh", 0.0, max_energy_price, false);
    if (root["node_power_w"]) inputs.node_power_w = required("node_power_w", 0.0, 1e6, false);
    return inputs;
}

OwnershipInputs read_ownership_file(const std::filesystem::path& path) {
    return parse_ownership(read_input_file(path, input_limits::max_text_file_bytes,
                                           fmt::format("{}: cannot read the ownership file: ", path.string())),
                           path.string());
}

}  // namespace shakedown::analysis
