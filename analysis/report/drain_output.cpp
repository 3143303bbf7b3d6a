#include "analysis/report/drain_output.hpp"

#include "analysis/rules/links/link_localization.hpp"
#include "hostlist/node_name.hpp"

#include <fmt/format.h>

namespace shakedown::analysis {

DrainList drain_list(const Judgement& judgement) {
    DrainList list;
    for (const NodeVerdict& node : judgement.nodes) {
        if (node.verdict != Verdict::fail || node.node == unknown_node) continue;
        // A slow link FAILs both of its ends, but the cable or port is replaced, not the nodes:
        // a node drains only for a hardware FAIL about itself, and its reason names that one. A
        // FAIL resting on a figure drains once a confirmation run measured it again.
        NodeVerdict own = node;
        std::erase_if(own.findings,
                      [](const Finding& finding) { return is_link_fault(finding) || (finding.level == Level::fail && !finding.drains()); });
        const int failures = own.hardware_failures();
        if (failures == 0) continue;
        if (!slurm::is_valid_node_name(node.node)) {
            list.refused.push_back(node.node);
            continue;
        }
        const Finding* worst = own.worst_finding();
        // The count first: drain reasons are cut at slurm::max_drain_reason_length.
        std::string reason = worst != nullptr ? fmt::format("{}: {}", worst->test, worst->reason) : "failed";
        if (failures > 1) reason = fmt::format("{} failures, first {}", failures, reason);
        list.requests.push_back({node.node, std::move(reason)});
    }
    return list;
}

}  // namespace shakedown::analysis
