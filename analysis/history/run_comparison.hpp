// `shakedown-analyze compare OLD NEW`: each node's figure of each metric in NEW against OLD (delta,
// ratio, and whether it got worse or better beyond the tolerance, is new or missing), and each
// passive-health counter of each device that rose from OLD's end reading to NEW's.
#pragma once

#include "analysis/history/run_record.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace shakedown::analysis {

enum class Change { worse, better, same, added, missing };
std::string_view to_string(Change change);  // "worse", "better", "same", "new", "missing"

struct MetricChange {
    std::string node;
    std::string test;
    std::string metric;
    std::string unit;
    Better better = Better::higher;
    std::optional<double> old_value;  // the node's figure (median over its ranks); none: not in OLD
    std::optional<double> new_value;
    std::optional<double> delta;  // new - old
    std::optional<double> ratio;  // new / old, when old is not 0
    Change change = Change::same;
};

struct CounterChange {
    std::string node;
    std::string device;
    std::string counter;
    std::string unit;
    std::optional<double> old_last;  // OLD's end reading; none: the device or counter was not in OLD
    double new_first = 0.0;
    double new_last = 0.0;
    double rise = 0.0;  // from OLD's end (or NEW's start, after a reset or without OLD) to NEW's end
};

struct RunComparison {
    RunRecord old_run;  // headers only (identity, run id, times, suite, verdict)
    RunRecord new_run;
    double tolerance = 0.0;
    std::vector<MetricChange> metrics;    // every (node, metric) of either run, node then metric order
    std::vector<CounterChange> counters;  // only the counters that rose
    int count(Change change) const;
};

// A change of more than `tolerance` (a fraction of OLD's figure) in the metric's worse direction
// is `worse`, in its better direction `better`.
RunComparison compare_runs(const RunRecord& old_run, const RunRecord& new_run, double tolerance);

}  // namespace shakedown::analysis
