#include "analysis/report/drain_output.hpp"

#include "slurm/node_name.hpp"

#include <fmt/format.h>

namespace shakedown::analysis {

DrainList drain_list(const Judgement& judgement) {
    DrainList list;
    for (const NodeVerdict& node : judgement.nodes) {
        if (node.verdict != Verdict::fail || node.node == unknown_node) continue;
        if (!slurm::is_valid_node_name(node.node)) {
            list.refused.push_back(node.node);
            continue;
        }
        const Finding* worst = node.worst_finding();
        const int failures = node.hardware_failures();
        // The count first: drain reasons are cut at slurm::max_drain_reason_length.
        std::string reason = worst != nullptr ? fmt::format("{}: {}", worst->test, worst->reason) : "failed";
        if (failures > 1) reason = fmt::format("{} failures, first {}", failures, reason);
        list.requests.push_back({node.node, std::move(reason)});
    }
    return list;
}

}  // namespace shakedown::analysis
