// A node's figure of a metric in one run: the median over the node's ranks (a rerun may number
// ranks differently, and a repaired node may come back with another GPU), and the fleet's median
// of those node figures: what `history` puts side by side (`compare` compares figures as
// `--baseline` does: rules/figures/figure_comparison).
#pragma once

#include "analysis/history/run_record.hpp"

#include <map>
#include <string>
#include <utility>

namespace shakedown::analysis {

struct NodeFigure {
    std::string test;
    std::string unit;
    Better better = Better::higher;
    double value = 0.0;  // median of the node's finite values
    int ranks = 0;       // how many values it is the median of
};

using NodeMetricKey = std::pair<std::string, std::string>;  // node, metric

// Every (node, metric) with at least one finite value.
std::map<NodeMetricKey, NodeFigure> node_figures(const RunRecord& run);

// Per metric, the median of the node figures of every node of the run.
std::map<std::string, double> fleet_medians(const std::map<NodeMetricKey, NodeFigure>& figures);

// How much a counter rose into a run from the previous one's end reading. A counter lower than
// before was reset (driver reload, GPU replaced): only what it rose within this run counts.
double counter_rise(double previous_last, const CounterReading& now);

}  // namespace shakedown::analysis
