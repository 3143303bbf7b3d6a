// `shakedown-analyze compare OLD NEW`: every figure of NEW against OLD as `--baseline` compares
// them (rules/figures/figure_comparison: a GPU's figure by its UUID, a host figure by node and local
// rank, a job-wide figure once for the run, an identifier never), with delta, ratio, and whether it
// got worse or better beyond the tolerance, is new or missing; and each passive-health counter of
// each device that rose from OLD's end reading to NEW's.
#pragma once

#include "analysis/history/run_record.hpp"
#include "analysis/rules/figures/figure_comparison.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace shakedown::analysis {

struct MetricChange {
    ComparedAs as = ComparedAs::rank;  // job: once for the run; gpu: by gpu_uuid; rank: by node and local rank
    std::string node;                  // "" for a job-wide figure
    int local_rank = 0;
    std::string gpu_uuid;
    std::string test;
    std::string metric;
    std::string unit;
    Better better = Better::higher;
    std::optional<double> old_value;  // none: not in OLD; job-wide: the median over the ranks
    std::optional<double> new_value;
    std::optional<double> delta;  // new - old
    std::optional<double> ratio;  // new / old, when old is not 0
    Change change = Change::same;
};

// Where a row was measured, as the reports print it: "job", "node1 GPU GPU-5a1e...", "node1 local rank 0".
std::string where(const MetricChange& row);

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
    std::vector<MetricChange> metrics;    // every figure of either run: job-wide first, then node, metric, where
    std::vector<CounterChange> counters;  // only the counters that rose
    int count(Change change) const;
};

// A change of more than `tolerance` (a fraction of OLD's figure) in the metric's worse direction
// is `worse`, in its better direction `better`.
RunComparison compare_runs(const RunRecord& old_run, const RunRecord& new_run, double tolerance);

}  // namespace shakedown::analysis
