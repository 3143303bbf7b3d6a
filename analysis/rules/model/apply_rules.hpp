// The rules of one analysis, in order, each a function from the observations to findings: the
// tests' own status, results missing, thresholds, fleet outliers, baseline regressions (when a
// baseline is given), link localization (every link matrix rank 0 holds: rules/links/link_matrices.hpp), slow ranks of the
// collectives and the RDMA port error counters over the whole run; then the telemetry
// explanations of what was found, and the verdicts, computed once from all findings.
#pragma once

#include "analysis/energy/energy_figures.hpp"
#include "analysis/load/observations.hpp"
#include "analysis/load/run_details.hpp"
#include "analysis/rules/figures/baseline.hpp"
#include "analysis/rules/figures/fleet_rule.hpp"
#include "analysis/rules/links/link_localization.hpp"
#include "analysis/rules/model/confirmation.hpp"
#include "analysis/rules/model/judged_metrics.hpp"
#include "analysis/rules/model/verdicts.hpp"
#include "analysis/rules/settings/thresholds.hpp"
#include "analysis/rules/settings/topology.hpp"
#include "profile/profile.hpp"

#include <optional>
#include <vector>

namespace shakedown::analysis {

// Everything the rules found, as values: the judgement (every finding, per node) and the
// references and localization the findings came from.
struct AnalysisResult {
    Judgement judgement;
    std::vector<FleetReference> fleet;
    std::optional<BaselineComparison> baseline;
    std::optional<LinkLocalization> links;      // when rank 0 ran allpairs
    std::vector<LinkLocalization> other_links;  // every other link matrix (tcp_bandwidth per interface)
    int explained = 0;                          // findings with a telemetry explanation
    ConfirmationPlan confirmation;              // what still awaits a confirmation run (rules/model/confirmation.hpp)
    std::string confirmation_run;               // the confirmation run judged with it, "" in a first analysis
    JudgedMetrics judged;                       // the figures a rule compared, for "PASS" against "not judged"
    std::vector<EnergyRow> energy;              // what a unit of work cost, per GPU and test (energy/energy_figures.hpp)

    std::vector<const LinkLocalization*> all_links() const;  // links, then other_links
};

// `profile`: what the nodes must have and run (nullptr: no profile; waivers are listed, not judged).
// `reader_jobs`: processes that read the node leaders' traces (rules/health/leader_trace_rules.hpp).
AnalysisResult apply_rules(const Observations& observations, const Thresholds& thresholds, const Observations* baseline,
                           const Topology* topology, RunDetails& details, const profile::Profile* profile = nullptr,
                           int reader_jobs = 1);

}  // namespace shakedown::analysis
