// `shakedown-analyze history FILE --node N [--metric M]`: the node's figure of each metric (each
// GPU's, for a figure its GPU measured) in every run of the history that had it, beside that run's
// fleet median (a node re-admitted after
// repair against its own earlier figures and the fleet), and each of its passive-health counters'
// end readings run by run, with the runs it rose into named.
#pragma once

#include "analysis/history/history_store.hpp"

#include <optional>
#include <string>
#include <vector>

namespace shakedown::analysis {

struct HistoryRunEntry {
    RunRecord header;          // identity, run id, start, the run's verdict
    std::string node_verdict;  // the node's verdict in that run
};

struct MetricTrendPoint {
    std::size_t run = 0;  // index into NodeHistory::runs
    double node = 0.0;    // the figure: the GPU's, else the median over the node's ranks
    double fleet_median = 0.0;
    int fleet_figures = 0;  // figures of the run of this metric (nodes', or GPUs' for a GPU's figure)
};

struct MetricTrend {
    std::string metric;
    std::string gpu_uuid;  // the GPU whose figure it is; "" for the node's
    std::string unit;
    Better better = Better::higher;
    std::vector<MetricTrendPoint> points;  // oldest first
};

struct CounterTrendPoint {
    std::size_t run = 0;
    double first = 0.0;
    double last = 0.0;
    double rise = 0.0;  // into this run: from the previous point's end (within the run for the first point or after a reset)
};

struct CounterTrend {
    std::string device;
    std::string counter;
    std::string unit;
    std::vector<CounterTrendPoint> points;
    double total_rise() const;
};

struct NodeHistory {
    std::string node;
    std::optional<std::string> metric;
    std::vector<HistoryRunEntry> runs;   // the runs that had the node, oldest first
    std::vector<MetricTrend> metrics;    // metric name order, then the node's before its GPUs' by UUID
    std::vector<CounterTrend> counters;  // device, then counter order
};

// Throws InputError when the history has no run with the node (or the node no such metric).
NodeHistory node_history(HistoryStore& store, const std::string& node, const std::optional<std::string>& metric);

}  // namespace shakedown::analysis
