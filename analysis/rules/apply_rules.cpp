#include "analysis/rules/apply_rules.hpp"

#include "analysis/rules/confirmation.hpp"
#include "analysis/rules/credibility_rule.hpp"
#include "analysis/rules/port_counter_rule.hpp"
#include "analysis/rules/profile_rule.hpp"
#include "analysis/rules/scheduler_rule.hpp"
#include "analysis/rules/slow_ranks.hpp"
#include "analysis/rules/stall_rule.hpp"
#include "analysis/rules/telemetry_explanation.hpp"
#include "analysis/rules/threshold_rule.hpp"

namespace shakedown::analysis {
namespace {

void append(std::vector<Finding>& findings, std::vector<Finding> more) {
    findings.insert(findings.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
}

}  // namespace

AnalysisResult apply_rules(const Observations& observations, const Thresholds& thresholds, const Observations* baseline,
                           const Topology* topology, RunDetails& details, const profile::Profile* profile) {
    const AnalysisSettings& settings = thresholds.settings();
    AnalysisResult result;
    std::vector<Finding> findings = test_status_findings(observations);
    append(findings, missing_result_findings(observations));
    append(findings, threshold_findings(observations, thresholds));

    FleetAnalysis fleet = analyze_fleet(observations, thresholds, findings);
    result.fleet = std::move(fleet.references);
    append(findings, std::move(fleet.findings));

    if (baseline != nullptr) {
        BaselineComparison comparison = compare_with_baseline(observations, *baseline, settings);
        append(findings, std::move(comparison.findings));
        comparison.findings.clear();
        result.baseline = std::move(comparison);
    }
    if (auto matrix = details.rank0_samples("allpairs")) {
        result.links = localize_links(*matrix, observations, topology, settings.link_bands());
        append(findings, link_findings(*result.links, observations));
    }
    append(findings, slow_rank_findings(observations, settings));
    append(findings, port_counter_findings(observations, settings));
    append(findings, credibility_findings(observations));
    append(findings, stall_findings(observations));
    append(findings, scheduler_findings(observations));
    if (profile != nullptr) append(findings, profile_findings(observations, *profile, details));

    result.explained = explain_findings(findings, observations, details, settings);
    await_confirmation(findings);
    result.judgement = judge(observations, std::move(findings));
    result.confirmation = confirmation_plan(result.judgement, observations);
    return result;
}

}  // namespace shakedown::analysis
