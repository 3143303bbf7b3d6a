#include "analysis/rules/health/scheduler_rule.hpp"

#include "core/printable_text.hpp"
#include "slurm/slurm_nodes.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <string>

namespace shakedown::analysis {

bool scheduler_lost_node(std::string_view state) {
    const std::string lower = ascii_lower(state);
    return lower.find("down") != std::string::npos || lower.find("fail") != std::string::npos ||
           lower.find('*') != std::string::npos;
}

std::vector<Finding> scheduler_findings(const Observations& observations) {
    const auto record = slurm::read_slurm_nodes(observations.run().dir);
    if (!record) return {};
    std::vector<Finding> findings;
    for (const slurm::SlurmNodeState& state : record->nodes) {
        if (!scheduler_lost_node(state.state)) continue;
        const auto node = std::find_if(observations.nodes().begin(), observations.nodes().end(),
                                       [&](const NodeRow& row) { return row.name == state.node; });
        if (node == observations.nodes().end() || node->ranks.empty()) continue;  // not one of this run's nodes
        const RankIdentity* who = observations.rank(node->ranks.front());
        if (who == nullptr) continue;
        findings.push_back(make_finding(*who, "slurm", Level::fail,
                                        fmt::format("Slurm marked {} {} during the job{}", state.node, state.state,
                                                    state.reason.empty() ? std::string() : " (" + state.reason + ")"),
                                        FindingSource::scheduler));
    }
    return findings;
}

}  // namespace shakedown::analysis
