#include "analysis/report/drain_output.hpp"

#include <fmt/format.h>

namespace shakedown::analysis {

std::vector<slurm::DrainRequest> drain_requests(const Judgement& judgement) {
    std::vector<slurm::DrainRequest> requests;
    for (const NodeVerdict& node : judgement.nodes) {
        if (node.verdict != Verdict::fail || node.node == "(unknown node)") continue;
        const Finding* worst = node.worst_finding();
        int failures = 0;
        for (const Finding& finding : node.findings) failures += finding.level == Level::fail ? 1 : 0;
        // The count first: drain reasons are cut at slurm::max_drain_reason_length.
        std::string reason = worst != nullptr ? fmt::format("{}: {}", worst->test, worst->reason) : "failed";
        if (failures > 1) reason = fmt::format("{} failures, first {}", failures, reason);
        requests.push_back({node.node, std::move(reason)});
    }
    return requests;
}

}  // namespace shakedown::analysis
