#include "analysis/history/node_history.hpp"

#include "analysis/history/node_figures.hpp"
#include "core/errors.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <utility>

namespace shakedown::analysis {

double CounterTrend::total_rise() const {
    double total = 0.0;
    for (const CounterTrendPoint& point : points) total += point.rise;
    return total;
}

NodeHistory node_history(HistoryStore& store, const std::string& node, const std::optional<std::string>& metric) {
    NodeHistory history;
    history.node = node;
    history.metric = metric;
    std::map<std::pair<std::string, std::string>, MetricTrend> metrics;    // metric, GPU UUID
    std::map<std::pair<std::string, std::string>, CounterTrend> counters;  // device, counter

    for (const StoredRun& stored : store.runs()) {
        // The whole fleet's values of the run (of one metric, when given) for its medians.
        const RunRecord run = store.read(stored, std::nullopt, metric);
        const auto verdict =
            std::find_if(run.nodes.begin(), run.nodes.end(), [&](const NodeRecord& entry) { return entry.node == node; });
        if (verdict == run.nodes.end()) continue;
        const std::size_t index = history.runs.size();
        history.runs.push_back({stored.header, verdict->verdict});

        const auto figures = node_figures(run);
        std::map<std::string, int> fleet_figures;
        for (const auto& [key, figure] : figures) ++fleet_figures[key.metric];
        const auto medians = fleet_medians(figures);
        for (const auto& [key, figure] : figures) {
            if (key.node != node) continue;
            MetricTrend& trend = metrics[{key.metric, key.gpu_uuid}];
            trend.metric = key.metric;
            trend.gpu_uuid = key.gpu_uuid;
            trend.unit = figure.unit;
            trend.better = figure.better;
            trend.points.push_back({index, figure.value, medians.at(key.metric), fleet_figures[key.metric]});
        }
        for (const CounterReading& reading : run.counters) {
            if (reading.node != node) continue;
            CounterTrend& trend = counters[{reading.device, reading.counter}];
            trend.device = reading.device;
            trend.counter = reading.counter;
            trend.unit = reading.unit;
            const double rise = trend.points.empty() ? std::max(0.0, reading.last - reading.first)
                                                     : counter_rise(trend.points.back().last, reading);
            trend.points.push_back({index, reading.first, reading.last, rise});
        }
    }
    if (history.runs.empty())
        throw InputError(fmt::format("{}: no run in this history has node '{}'", store.path().string(), node));
    if (metric && metrics.empty())
        throw InputError(fmt::format("{}: node '{}' has no figure of metric '{}' in this history", store.path().string(),
                                     node, *metric));
    for (auto& [name, trend] : metrics) history.metrics.push_back(std::move(trend));
    for (auto& [key, trend] : counters) history.counters.push_back(std::move(trend));
    return history;
}

}  // namespace shakedown::analysis
