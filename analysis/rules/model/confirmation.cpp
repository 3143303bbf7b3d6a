#include "analysis/rules/model/confirmation.hpp"

#include "analysis/rules/links/link_localization.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <tuple>

namespace shakedown::analysis {
namespace {

// What makes two findings of two analyses the same finding: who, which test and figure, which
// rule; for a slow link also its far end (a node may have two slow links); for a link finding its
// matrix (one node's slow link on eth0 and on eth1 are two findings).
using Identity =
    std::tuple<std::string, int, std::string, std::string, FindingSource, std::vector<std::string>, std::string>;

Identity identity_of(const Finding& finding) {
    return {finding.node,       finding.rank,   finding.test,
            finding.metric,     finding.source, is_link_fault(finding) ? finding.peers : std::vector<std::string>{},
            finding.link_matrix};
}

void add_once(std::vector<std::string>& list, const std::string& value) {
    if (std::find(list.begin(), list.end(), value) == list.end()) list.push_back(value);
}

}  // namespace

void await_confirmation(std::vector<Finding>& findings) {
    for (Finding& finding : findings)
        if (finding.needs_confirmation()) finding.confirmation = Confirmation::awaiting;
}

ConfirmationPlan confirmation_plan(const Judgement& judgement, const Observations& observations) {
    ConfirmationPlan plan;
    std::set<std::string> nodes;
    for (const NodeVerdict& node : judgement.nodes)
        for (const Finding& finding : node.findings) {
            if (finding.confirmation != Confirmation::awaiting) continue;
            ++plan.awaiting;
            add_once(plan.tests, finding.test);
            nodes.insert(finding.node);
            nodes.insert(finding.peers.begin(), finding.peers.end());
        }
    for (const NodeRow& node : observations.nodes())
        if (nodes.count(node.name)) plan.nodes.push_back(node.name);
    return plan;
}

namespace {

// A link finding's evidence as measured again: the median ratio of its links (the node and each
// peer; one direction where the first run judged the link by it) to the first run's reference
// for each, nullopt when one of them was not measured again.
std::optional<double> remeasured_link_ratio(const Finding& finding, const Remeasured& measured,
                                            const LinkLocalization& links) {
    std::vector<double> ratios;
    for (const std::string& peer : finding.peers) {
        const auto link = std::find_if(links.links.begin(), links.links.end(), [&](const NodeLink& candidate) {
            return candidate.touches(finding.node) && candidate.other_end(finding.node) == peer;
        });
        if (link == links.links.end()) return std::nullopt;
        // A link the first run judged by its slow direction is measured again that way.
        const std::optional<double> again =
            link->one_direction() ? measured.directed_link(links.matrix, link->slow_from, link->other_end(link->slow_from))
                                  : measured.link(links.matrix, finding.node, peer);
        if (!again || !(link->reference_gbs > 0.0)) return std::nullopt;
        ratios.push_back(*again / link->reference_gbs);
    }
    if (ratios.empty()) return std::nullopt;
    std::sort(ratios.begin(), ratios.end());
    return ratios[ratios.size() / 2];  // the upper median, as the attribution's own figure
}

// A link finding of the first run, confirmed or not by the links of its matrix measured again.
void confirm_link_finding(Finding& finding, const Remeasured& measured,
                          const std::vector<const LinkLocalization*>& localizations) {
    const auto from = std::find_if(localizations.begin(), localizations.end(), [&](const LinkLocalization* candidate) {
        return candidate->matrix == finding.link_matrix;
    });
    const LinkLocalization* links = from != localizations.end() ? *from : nullptr;
    const std::optional<double> ratio = links ? remeasured_link_ratio(finding, measured, *links) : std::nullopt;
    if (!ratio) {
        finding.confirmation = Confirmation::awaiting;
        return;
    }
    const double band = is_link_fault(finding) ? links->bands.link_fail : links->bands.node_fail;
    const std::string figure =
        fmt::format("measured its link(s) to {} again at {:.2f} of their references (fail below {:.2f})",
                    fmt::join(finding.peers, ", "), *ratio, band);
    if (*ratio < band) {
        finding.confirmation = Confirmation::confirmed;
        finding.reason += fmt::format("; confirmed: run {} {}", measured.run_id, figure);
    } else {
        finding.level = Level::warn;
        finding.confirmation = Confirmation::not_reproduced;
        finding.reason =
            fmt::format("not reproduced: run {} {}; the first run's FAIL was: {}", measured.run_id, figure, finding.reason);
    }
}

}  // namespace

bool remeasured(const Finding& finding, const Remeasured& remeasured) {
    if (!remeasured.covers(finding.node, finding.test)) return false;
    return std::all_of(finding.peers.begin(), finding.peers.end(),
                       [&](const std::string& peer) { return remeasured.covers(peer, finding.test); });
}

std::vector<Finding> confirm_findings(const std::vector<Finding>& first, std::vector<Finding> again,
                                      const Remeasured& measured, const std::vector<const LinkLocalization*>& first_links) {
    // Link findings: the first run's, each against its links measured again. The rules over the
    // run with the confirmation's results in place judge the same matrix (the first run's) and
    // would only repeat them.
    std::erase_if(again, [](const Finding& finding) { return finding.source == FindingSource::links; });
    for (const Finding& finding : first) {
        if (finding.source != FindingSource::links) continue;
        again.push_back(finding);
        if (finding.needs_confirmation()) confirm_link_finding(again.back(), measured, first_links);
    }

    std::map<Identity, const Finding*> first_fails;
    for (const Finding& finding : first)
        if (finding.needs_confirmation() && finding.source != FindingSource::links)
            first_fails.emplace(identity_of(finding), &finding);

    std::map<Identity, Finding*> again_by_identity;
    for (Finding& finding : again) {
        if (finding.source == FindingSource::links) continue;
        again_by_identity.emplace(identity_of(finding), &finding);
        if (!finding.needs_confirmation()) continue;
        const auto before = first_fails.find(identity_of(finding));
        if (before != first_fails.end() && remeasured(finding, measured)) {
            finding.confirmation = Confirmation::confirmed;
            finding.reason += fmt::format("; confirmed by run {} (first run: {})", measured.run_id,
                                          before->second->value ? with_unit(*before->second->value, before->second->unit)
                                                                : std::string("FAIL"));
        } else {
            finding.confirmation = Confirmation::awaiting;
        }
    }
    std::vector<Finding> from_first_run;  // its FAILs the rules over the confirmation no longer find
    for (const auto& [identity, before] : first_fails) {
        if (!remeasured(*before, measured)) {
            // Not measured again: it stays a FAIL that drains nothing, also where the rules over
            // the run with the confirmation in place no longer see it (a figure that several
            // nodes' results make, such as the congestion rings rank 0 measured again without it).
            if (!again_by_identity.contains(identity)) {
                from_first_run.push_back(*before);
                from_first_run.back().confirmation = Confirmation::awaiting;
            }
            continue;
        }
        const auto now = again_by_identity.find(identity);
        if (now != again_by_identity.end() && now->second->level == Level::fail) continue;  // confirmed above
        const std::string remeasured_text = now != again_by_identity.end() ? now->second->reason : "within its band";
        Finding warning = now != again_by_identity.end() ? *now->second : *before;
        warning.level = Level::warn;
        warning.confirmation = Confirmation::not_reproduced;
        warning.reason = fmt::format("not reproduced: run {} measured it again: {}; the first run's FAIL was: {}",
                                     measured.run_id, remeasured_text, before->reason);
        if (now != again_by_identity.end()) *now->second = std::move(warning);
        else from_first_run.push_back(std::move(warning));
    }
    again.insert(again.end(), std::make_move_iterator(from_first_run.begin()),
                 std::make_move_iterator(from_first_run.end()));
    return again;
}

std::vector<Finding> all_findings(const Judgement& judgement) {
    std::vector<Finding> findings;
    for (const NodeVerdict& node : judgement.nodes)
        findings.insert(findings.end(), node.findings.begin(), node.findings.end());
    return findings;
}

}  // namespace shakedown::analysis
