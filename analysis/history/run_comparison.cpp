#include "analysis/history/run_comparison.hpp"

#include "analysis/history/node_figures.hpp"

#include <fmt/format.h>

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

std::vector<ComparedValue> compared_values(const RunRecord& run) {
    std::vector<ComparedValue> values;
    values.reserve(run.values.size());
    for (const MeasuredValue& value : run.values)
        values.push_back({.node = value.node,
                          .local_rank = value.local_rank,
                          .gpu_uuid = value.gpu_uuid,
                          .test = value.test,
                          .metric = value.metric,
                          .unit = value.unit,
                          .better = value.better,
                          .value = value.value});
    return values;
}

using CounterKey = std::tuple<std::string, std::string, std::string>;  // node, device, counter

}  // namespace

std::string where(const MetricChange& row) {
    switch (row.as) {
    case ComparedAs::job: return "job";
    case ComparedAs::gpu: return fmt::format("{} GPU {}", row.node, row.gpu_uuid);
    case ComparedAs::rank: break;
    }
    return fmt::format("{} local rank {}", row.node, row.local_rank);
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

    for (FigureChange& figure : compare_figures(compared_values(old_run), compared_values(new_run), tolerance)) {
        MetricChange row{.as = figure.as,
                         .node = std::move(figure.node),
                         .local_rank = figure.local_rank,
                         .gpu_uuid = std::move(figure.gpu_uuid),
                         .test = std::move(figure.test),
                         .metric = std::move(figure.metric),
                         .unit = std::move(figure.unit),
                         .better = figure.better,
                         .old_value = figure.old_value,
                         .new_value = figure.new_value,
                         .change = figure.change};
        if (row.old_value && row.new_value) {
            row.delta = *row.new_value - *row.old_value;
            if (*row.old_value != 0.0) row.ratio = *row.new_value / *row.old_value;
        }
        comparison.metrics.push_back(std::move(row));
    }
    // The run's own figures first, then by node, metric and where.
    std::stable_sort(comparison.metrics.begin(), comparison.metrics.end(), [](const MetricChange& a, const MetricChange& b) {
        return std::make_tuple(a.as != ComparedAs::job, a.node, a.metric, a.local_rank, a.gpu_uuid) <
               std::make_tuple(b.as != ComparedAs::job, b.node, b.metric, b.local_rank, b.gpu_uuid);
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
