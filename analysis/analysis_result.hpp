// Everything one analysis found, as values: the judgement (every finding of every rule), the
// references it used, the localization, the per-node figures and the price. Every output
// (terminal, summary.json, junit.xml, report.html, markdown, drain.txt) is a sink of this value.
#pragma once

#include "analysis/baseline.hpp"
#include "analysis/fleet_rule.hpp"
#include "analysis/judgement.hpp"
#include "analysis/link_localization.hpp"
#include "analysis/node_metrics.hpp"
#include "analysis/price_report.hpp"
#include "analysis/run_data.hpp"
#include "analysis/run_details.hpp"
#include "analysis/thresholds.hpp"
#include "analysis/topology.hpp"

#include <optional>
#include <vector>

namespace shakedown::analysis {

struct AnalysisResult {
    Judgement judgement;
    std::vector<FleetReference> fleet;
    std::optional<BaselineComparison> baseline;
    std::optional<LinkLocalization> links;  // when rank 0 ran allpairs
    std::vector<NodeMetrics> node_metrics;
    std::optional<PriceReport> price;
    int explained = 0;  // findings with a telemetry explanation
};

// Thresholds, fleet outliers, baseline regressions (when `baseline` is given), link localization
// (when rank 0 ran allpairs), slow ranks of the collectives, RDMA port error counters over the
// whole run, telemetry explanations, per-node figures and the price (when the settings carry one).
AnalysisResult analyze_run(const LoadedRun& run, const Thresholds& thresholds, const LoadedRun* baseline,
                           const Topology* topology, RunDetails& details);

}  // namespace shakedown::analysis
