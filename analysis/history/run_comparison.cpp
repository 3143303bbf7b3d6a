#include "analysis/history/run_comparison.hpp"

#include "analysis/history/node_figures.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

namespace shakedown::analysis {
namespace {

RunRecord header_of(const RunRecord& run) {
    RunRecord header = run;
    header.nodes.clear();
    header.values.clear();
    header.counters.clear();
    return header;
}

Change classify(double old_value, double new_value, Better better, double tolerance) {
    if (new_value == old_value) return Change::same;
    // OLD at 0 (an error count, a latency that rounded to 0): any change is beyond a fraction of it.
    const double relative = old_value != 0.0 ? (new_value - old_value) / std::fabs(old_value)
                                             : (new_value > old_value ? 1.0 : -1.0) * INFINITY;
    const double worse_by = better == Better::higher ? -relative : relative;
    if (worse_by > tolerance) return Change::worse;
    if (worse_by < -tolerance) return Change::better;
    return Change::same;
}

using CounterKey = std::tuple<std::string, std::string, std::string>;  // node, device, counter

}  // namespace

std::string_view to_string(Change change) {
    switch (change) {
    case Change::worse: return "worse";
    case Change::better: return "better";
    case Change::same: return "same";
    case Change::added: return "new";
    case Change::missing: return "missing";
    }
    return "?";
}

int RunComparison::count(Change change) const {
    return static_cast<int>(std::count_if(metrics.begin(), metrics.end(),
                                          [&](const MetricChange& row) { return row.change == change; }));
}

RunComparison compare_runs(const RunRecord& old_run, const RunRecord& new_run, double tolerance) {
    RunComparison comparison;
    comparison.old_run = header_of(old_run);
    comparison.new_run = header_of(new_run);
    comparison.tolerance = tolerance;

    const auto before = node_figures(old_run);
    const auto after = node_figures(new_run);
    auto row_of = [](const NodeMetricKey& key, const NodeFigure& figure) {
        MetricChange row;
        row.node = key.first;
        row.metric = key.second;
        row.test = figure.test;
        row.unit = figure.unit;
        row.better = figure.better;
        return row;
    };
    for (const auto& [key, figure] : after) {
        MetricChange row = row_of(key, figure);
        row.new_value = figure.value;
        if (const auto old = before.find(key); old != before.end()) {
            row.old_value = old->second.value;
            row.delta = figure.value - old->second.value;
            if (old->second.value != 0.0) row.ratio = figure.value / old->second.value;
            row.change = classify(old->second.value, figure.value, figure.better, tolerance);
        } else {
            row.change = Change::added;
        }
        comparison.metrics.push_back(std::move(row));
    }
    for (const auto& [key, figure] : before) {
        if (after.contains(key)) continue;
        MetricChange row = row_of(key, figure);
        row.old_value = figure.value;
        row.change = Change::missing;
        comparison.metrics.push_back(std::move(row));
    }
    std::stable_sort(comparison.metrics.begin(), comparison.metrics.end(), [](const MetricChange& a, const MetricChange& b) {
        return std::tie(a.node, a.metric) < std::tie(b.node, b.metric);
    });

    std::map<CounterKey, double> old_last;
    for (const CounterReading& counter : old_run.counters)
        old_last[{counter.node, counter.device, counter.counter}] = counter.last;
    for (const CounterReading& counter : new_run.counters) {
        const auto old = old_last.find({counter.node, counter.device, counter.counter});
        CounterChange row{counter.node, counter.device, counter.counter, counter.unit,
                          std::nullopt, counter.first,  counter.last,    0.0};
        if (old != old_last.end()) {
            row.old_last = old->second;
            row.rise = counter_rise(old->second, counter);
        } else {
            row.rise = std::max(0.0, counter.last - counter.first);
        }
        if (row.rise > 0) comparison.counters.push_back(std::move(row));
    }
    return comparison;
}

}  // namespace shakedown::analysis
