// Fleet references: per metric the median and MAD over the fleet's units, and the robust
// outlier rule that flags a unit far below its peers even when it passes its absolute
// thresholds. A unit is a GPU (a rank bound to one: run.json "gpu") or, for ranks without a GPU,
// a node (the median of its ranks, since host ranks of one node share its sockets).
#pragma once

#include "analysis/load/observations.hpp"
#include "analysis/rules/model/finding.hpp"
#include "analysis/rules/settings/thresholds.hpp"

#include <optional>
#include <string>
#include <vector>

namespace shakedown::analysis {

struct FleetReference {
    std::string metric;
    std::string unit;
    Better better = Better::higher;
    int units = 0;         // how many values the median is over
    bool per_gpu = false;  // units are GPUs (else nodes)
    double median = 0.0;
    double mad = 0.0;
    std::optional<double> nominal;  // the median of the units' nominal figures, when they carry one
};

struct FleetAnalysis {
    std::vector<FleetReference> references;  // metrics with a fleet_outlier rule, by name
    std::vector<Finding> findings;           // outliers not already flagged at that level by the thresholds
};

// `judged`: what the earlier rules found, so the fleet rule does not repeat a finding at its level.
FleetAnalysis analyze_fleet(const Observations& observations, const Thresholds& thresholds,
                            const std::vector<Finding>& judged);

}  // namespace shakedown::analysis
