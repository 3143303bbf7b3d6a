#include "analysis/analysis_result.hpp"
#include "analysis/port_counter_rule.hpp"
#include "analysis/slow_ranks.hpp"
#include "analysis/telemetry_explanation.hpp"

namespace shakedown::analysis {

AnalysisResult analyze_run(const LoadedRun& run, const Thresholds& thresholds, const LoadedRun* baseline,
                           const Topology* topology, RunDetails& details) {
    const AnalysisSettings& settings = thresholds.settings();
    AnalysisResult result;
    result.judgement = judge_run(run, thresholds);

    FleetAnalysis fleet = analyze_fleet(run, thresholds, result.judgement);
    result.fleet = std::move(fleet.references);
    add_findings(result.judgement, std::move(fleet.findings));

    if (baseline != nullptr) {
        BaselineComparison comparison = compare_with_baseline(run, *baseline, settings);
        add_findings(result.judgement, std::move(comparison.findings));
        comparison.findings.clear();
        result.baseline = std::move(comparison);
    }

    if (auto matrix = details.rank0_samples("allpairs")) {
        result.links = localize_links(*matrix, run, topology, settings.slow_fraction());
        add_findings(result.judgement, link_findings(*result.links, run));
    }
    add_findings(result.judgement, slow_rank_findings(run, settings));
    add_findings(result.judgement, port_counter_findings(run, settings));

    refresh_verdicts(result.judgement);
    result.explained = explain_findings(result.judgement, details, settings);
    result.node_metrics = summarize_node_metrics(run);
    result.price = make_price_report(result.node_metrics, settings);
    return result;
}

}  // namespace shakedown::analysis
