#include "analysis/report/node_metrics.hpp"

#include "stats/summary.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace shakedown::analysis {

std::optional<double> NodeMetric::usable_fraction() const {
    if (!nominal || *nominal <= 0.0) return std::nullopt;
    if (better == Better::lower) return worst() > 0.0 ? std::optional<double>(*nominal / worst()) : std::nullopt;
    return worst() / *nominal;
}

const NodeMetric* NodeMetrics::find(std::string_view name) const {
    auto found = std::lower_bound(metrics.begin(), metrics.end(), name,
                                  [](const NodeMetric& metric, std::string_view key) { return metric.name < key; });
    return found != metrics.end() && found->name == name ? &*found : nullptr;
}

std::vector<NodeMetrics> summarize_node_metrics(const Observations& observations) {
    struct Values {
        std::string unit;
        Better better = Better::higher;
        std::vector<double> values;
        std::vector<double> nominals;
        std::vector<NodeMetric::Device> devices;
    };
    std::vector<std::string> order;
    std::map<std::string, std::map<std::string, Values>> by_node;
    for (const NodeRow& node : observations.nodes())
        if (node.name != unknown_node && by_node.try_emplace(node.name).second) order.push_back(node.name);
    for (const MetricRow& row : observations.metrics()) {
        const Metric& metric = *row.metric;
        if (row.who->node == unknown_node || !std::isfinite(metric.value)) continue;
        Values& values = by_node[row.who->node][metric.name];
        values.unit = metric.unit;
        values.better = metric.better;
        values.values.push_back(metric.value);
        values.devices.push_back({row.who->rank, row.who->gpu, metric.value});
        if (metric.nominal && std::isfinite(*metric.nominal)) values.nominals.push_back(*metric.nominal);
    }
    std::vector<NodeMetrics> summaries;
    for (const std::string& node : order) {
        NodeMetrics summary{node, {}};
        for (auto& [name, values] : by_node[node]) {  // std::map: by name, as find() expects
            NodeMetric metric;
            metric.name = name;
            metric.unit = values.unit;
            metric.better = values.better;
            metric.ranks = static_cast<int>(values.values.size());
            metric.min = *std::min_element(values.values.begin(), values.values.end());
            metric.max = *std::max_element(values.values.begin(), values.values.end());
            metric.sum = std::accumulate(values.values.begin(), values.values.end(), 0.0);
            metric.median = stats::median(values.values);
            metric.devices = std::move(values.devices);
            if (!values.nominals.empty()) {
                metric.nominal = stats::median(values.nominals);
                metric.nominal_sum = std::accumulate(values.nominals.begin(), values.nominals.end(), 0.0);
            }
            summary.metrics.push_back(std::move(metric));
        }
        summaries.push_back(std::move(summary));
    }
    return summaries;
}

}  // namespace shakedown::analysis
