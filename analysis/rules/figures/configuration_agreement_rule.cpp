#include "analysis/rules/figures/configuration_agreement_rule.hpp"

#include "core/json_text.hpp"
#include "inventory/inventory_names.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

namespace shakedown::analysis {
namespace {

using json = nlohmann::json;
namespace names = inventory_names;

std::string text_of(const json& value) { return value.is_string() ? value.get<std::string>() : std::string(); }

// section.field as text.
std::function<std::string(const json&)> field(const char* section, const char* key) {
    return [section, key](const json& inventory) { return text_of(json_member(json_member(inventory, section), key)); };
}

// Every distinct value of `key` over a list's entries, sorted and joined: a node's GPUs or HCAs
// as one fact ("96.00.99.00.01" when all agree, "a, b" when the node's own cards differ).
std::string distinct_values(const json& list, const char* key) {
    std::set<std::string> values;
    if (list.is_array())
        for (const json& entry : list)
            if (const std::string value = text_of(json_member(entry, key)); !value.empty()) values.insert(value);
    std::string joined;
    for (const std::string& value : values) joined += (joined.empty() ? "" : ", ") + value;
    return joined;
}

// NVML's driver version, else the versions section's (which says "none (no NVML)" without one:
// no driver to compare).
std::string gpu_driver(const json& inventory) {
    const std::string from_nvml =
        text_of(json_member(json_member(inventory, names::nvml::section), names::nvml::driver_version));
    if (!from_nvml.empty()) return from_nvml;
    const std::string from_versions =
        text_of(json_member(json_member(inventory, names::versions::section), names::versions::nvidia_driver));
    return from_versions.starts_with("none") || from_versions == "unknown" ? std::string() : from_versions;
}

// A node's facts compared one fact at a time: node name -> value.
using Values = std::map<std::string, std::string>;

Finding drift(const RankIdentity& leader, const std::string& reason) {
    Finding finding = make_finding(leader, configuration_check, Level::fail, reason + " [rule configuration_drift]",
                                   FindingSource::configuration_drift);
    finding.gpu.reset();
    finding.gpu_uuid.clear();
    finding.cause = Cause::configuration;  // an installation to make alike, not hardware to send back
    return finding;
}

void compare(const ConfigurationFact& fact, const Values& values, const std::map<std::string, const RankIdentity*>& nodes,
             std::vector<Finding>& findings) {
    std::map<std::string, int> holders;  // value -> nodes holding it
    for (const auto& [node, value] : values) ++holders[value];
    if (values.size() < 2 || holders.size() < 2) return;
    const auto most =
        std::max_element(holders.begin(), holders.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
    const int compared = static_cast<int>(values.size());
    if (2 * most->second > compared) {
        for (const auto& [node, value] : values)
            if (value != most->first)
                findings.push_back(drift(*nodes.at(node),
                                         fmt::format("{} {} differs from the {} of {} nodes that have {}", fact.label, value,
                                                     most->second, compared, most->first)));
        return;
    }
    std::string all;
    for (const auto& [value, count] : holders)
        all += fmt::format("{}{} ({} node{})", all.empty() ? "" : "; ", value, count, count == 1 ? "" : "s");
    for (const auto& [node, value] : values)
        findings.push_back(drift(*nodes.at(node), fmt::format("{} {}: the {} nodes compared agree on no version ({})",
                                                              fact.label, value, compared, all)));
}

}  // namespace

const std::vector<ConfigurationFact>& configuration_facts() {
    static const std::vector<ConfigurationFact> facts{
        {"GPU driver", gpu_driver},
        {"CUDA", field(names::versions::section, names::versions::cuda)},
        {"NCCL", field(names::versions::section, names::versions::nccl)},
        {"MPI", field(names::versions::section, names::versions::mpi)},
        {"shakedown", field(names::versions::section, names::versions::shakedown)},
        {"kernel", field(names::os::section, names::os::kernel)},
        {"OS", field(names::os::section, names::os::pretty_name)},
        {"BIOS", field(names::board::section, names::board::bios_version)},
        {"GPU VBIOS",
         [](const json& inventory) {
             return distinct_values(json_member(json_member(inventory, names::nvml::section), names::nvml::devices),
                                    names::nvml::vbios_version);
         }},
        {"HCA firmware",
         [](const json& inventory) {
             return distinct_values(json_member(inventory, names::rdma::section), names::rdma::fw_ver);
         }},
    };
    return facts;
}

std::vector<Finding> configuration_agreement_findings(const Observations& observations, RunDetails& details) {
    std::map<std::string, const RankIdentity*> nodes;  // node -> its leader
    std::vector<Values> values(configuration_facts().size());
    for (const NodeRow& node : observations.nodes()) {
        const RankIdentity* leader = node.leader == nullptr ? nullptr : observations.rank(node.leader->rank);
        if (leader == nullptr) continue;
        const json& inventory = details.inventory(node.name);
        if (!inventory.is_object()) continue;
        nodes[node.name] = leader;
        for (std::size_t i = 0; i < configuration_facts().size(); ++i)
            if (std::string value = configuration_facts()[i].read(inventory); !value.empty())
                values[i][node.name] = std::move(value);
    }
    std::vector<Finding> findings;
    for (std::size_t i = 0; i < configuration_facts().size(); ++i)
        compare(configuration_facts()[i], values[i], nodes, findings);
    return findings;
}

}  // namespace shakedown::analysis
