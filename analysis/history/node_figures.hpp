// A node's figures of a metric in one run, and the fleet's median of them: what `history` puts side
// by side (`compare` compares figures as `--baseline` does: rules/figures/figure_comparison).
// - A figure a GPU measured is that GPU's, by its UUID: a throttled GPU among eight is not hidden
//   in its node's median, and a replaced one ends its row while the new one starts its own.
// - Any other figure is the median over the node's ranks (a rerun may number ranks differently);
//   so is a job-wide one, which every rank records alike.
#pragma once

#include "analysis/history/run_record.hpp"

#include <map>
#include <string>

namespace shakedown::analysis {

struct NodeFigure {
    std::string test;
    std::string unit;
    Better better = Better::higher;
    double value = 0.0;  // median of the node's finite values
    int ranks = 0;       // how many values it is the median of
};

struct NodeMetricKey {
    std::string node;
    std::string metric;
    std::string gpu_uuid;  // the GPU whose figure it is; "" for the node's own
    auto operator<=>(const NodeMetricKey&) const = default;
};

// Every (node, metric, GPU) with at least one finite value.
std::map<NodeMetricKey, NodeFigure> node_figures(const RunRecord& run);

// Per metric, the median of every figure of the run (nodes' and GPUs').
std::map<std::string, double> fleet_medians(const std::map<NodeMetricKey, NodeFigure>& figures);

// How much a counter rose into a run from the previous one's end reading. A counter lower than
// before was reset (driver reload, GPU replaced): only what it rose within this run counts.
double counter_rise(double previous_last, const CounterReading& now);

}  // namespace shakedown::analysis
