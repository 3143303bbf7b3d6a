// Configuration agreement across the fleet: an acceptance signs one software and firmware
// baseline on every node. Each node's versions and firmware, as its leader's inventory recorded
// them (inventory/inventory_names.hpp), are compared across the run's nodes: GPU driver, CUDA,
// NCCL, MPI, shakedown itself, kernel, OS, BIOS, GPU VBIOS and HCA firmware. A node whose value
// differs from the one a strict majority of the nodes that recorded it hold is named with both
// values; without a strict majority every node is named with every value. One finding per node
// and fact, filed under the pseudo-test "configuration_agreement", FAIL, cause configuration
// (fix the installation: never drained, the run exits 2), rule "configuration_drift". A fact a
// node did not record is left out; fewer than two nodes that recorded it: nothing to compare.
#pragma once

#include "analysis/load/observations.hpp"
#include "analysis/load/run_details.hpp"
#include "analysis/rules/model/finding.hpp"

#include <functional>
#include <string>
#include <vector>

namespace shakedown::analysis {

inline constexpr const char* configuration_check = "configuration_agreement";

// One compared fact: its name in a reason ("GPU driver") and how it is read from an inventory
// ("" when the inventory does not record it).
struct ConfigurationFact {
    const char* label;
    std::function<std::string(const nlohmann::json& inventory)> read;
};

// The facts compared, in the order their findings are listed.
const std::vector<ConfigurationFact>& configuration_facts();

std::vector<Finding> configuration_agreement_findings(const Observations& observations, RunDetails& details);

}  // namespace shakedown::analysis
