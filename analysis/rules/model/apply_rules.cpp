#include "analysis/rules/model/apply_rules.hpp"

#include "analysis/rules/figures/blas_kernel_rule.hpp"
#include "analysis/rules/figures/configuration_agreement_rule.hpp"
#include "analysis/rules/figures/credibility_rule.hpp"
#include "analysis/rules/figures/profile_rule.hpp"
#include "analysis/rules/figures/scaling_rule.hpp"
#include "analysis/rules/figures/threshold_rule.hpp"
#include "analysis/rules/health/freeze_rule.hpp"
#include "analysis/rules/health/leader_trace_rules.hpp"
#include "analysis/rules/health/scheduler_rule.hpp"
#include "analysis/rules/health/stall_rule.hpp"
#include "analysis/rules/health/telemetry_explanation.hpp"
#include "analysis/rules/links/congestion_rule.hpp"
#include "analysis/rules/links/slow_ranks.hpp"
#include "analysis/rules/model/confirmation.hpp"

namespace shakedown::analysis {
namespace {

// A finding about a test its rank ran on the host (`device: host`) is the host's, not the GPU
// the rank is bound to: no GPU row in the report, no GPU telemetry as its explanation (an H200
// node's slow host DGEMM was explained by the idle GPU's 390 MHz clock).
void file_host_results_under_the_host(std::vector<Finding>& findings, const Observations& observations) {
    for (Finding& finding : findings) {
        if (!finding.gpu) continue;
        const TestResult* test = observations.test_of(finding.rank, finding.test);
        if (test == nullptr) continue;
        if (ran_on_host(*test)) {
            finding.gpu.reset();
            finding.gpu_uuid.clear();
        }
    }
}

}  // namespace

std::vector<const LinkLocalization*> AnalysisResult::all_links() const {
    std::vector<const LinkLocalization*> all;
    if (links) all.push_back(&*links);
    for (const LinkLocalization& other : other_links) all.push_back(&other);
    return all;
}

AnalysisResult apply_rules(const Observations& observations, const Thresholds& thresholds, const Observations* baseline,
                           const Topology* topology, RunDetails& details, const profile::Profile* profile, int reader_jobs) {
    const AnalysisSettings& settings = thresholds.settings();
    AnalysisResult result;
    std::vector<Finding> findings = test_status_findings(observations);
    append(findings, missing_result_findings(observations));
    append(findings, threshold_findings(observations, thresholds, &result.judged));

    FleetAnalysis fleet = analyze_fleet(observations, thresholds, findings);
    for (const FleetReference& reference : fleet.references) result.judged.add_fleet(reference.metric, reference.per_gpu);
    result.fleet = std::move(fleet.references);
    append(findings, std::move(fleet.findings));

    if (baseline != nullptr) {
        BaselineComparison comparison = compare_with_baseline(observations, *baseline, settings);
        append(findings, std::move(comparison.findings));
        comparison.findings.clear();
        result.baseline = std::move(comparison);
    }
    for (const LinkMatrix& matrix : link_matrices_of(details)) {
        LinkLocalization localization = localize_links(matrix, observations, topology, settings.link_bands());
        append(findings, link_findings(localization, observations));
        if (matrix.name == link_matrix_sources().front().test) result.links = std::move(localization);
        else result.other_links.push_back(std::move(localization));
    }
    append(findings, slow_rank_findings(observations, settings));
    append(findings, scaling_findings(observations, settings));
    append(findings,
           congestion_findings(observations, settings, [&](const std::string& key) { return details.rank0_samples(key); }));
    LeaderTraceFindings leader_findings = leader_trace_findings(observations, settings, profile, reader_jobs);
    append(findings, std::move(leader_findings.port_counters));
    append(findings, std::move(leader_findings.hidden_faults));
    append(findings, std::move(leader_findings.pkeys));
    result.energy = std::move(leader_findings.energy);
    append(findings, credibility_findings(observations));
    append(findings, stall_findings(observations));
    append(findings, freeze_findings(observations));
    append(findings, scheduler_findings(observations));
    judge_blas_kernels(findings, observations, details);
    append(findings, configuration_agreement_findings(observations, details));
    if (profile != nullptr) append(findings, profile_findings(observations, *profile, details));

    file_host_results_under_the_host(findings, observations);
    result.explained = explain_findings(findings, observations, details, settings);
    await_confirmation(findings);
    result.judgement = judge(observations, std::move(findings));
    result.confirmation = confirmation_plan(result.judgement, observations);
    return result;
}

}  // namespace shakedown::analysis
