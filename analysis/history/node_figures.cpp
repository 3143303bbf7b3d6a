#include "analysis/history/node_figures.hpp"

#include "analysis/rules/figures/figure_comparison.hpp"
#include "stats/summary.hpp"

#include <cmath>
#include <vector>

namespace shakedown::analysis {

std::map<NodeMetricKey, NodeFigure> node_figures(const RunRecord& run) {
    std::map<NodeMetricKey, std::vector<double>> values;
    std::map<NodeMetricKey, NodeFigure> figures;
    for (const MeasuredValue& value : run.values) {
        if (!std::isfinite(value.value)) continue;
        const bool own_gpu = !value.gpu_uuid.empty() && !is_job_wide(value.test, value.metric);
        const NodeMetricKey key{value.node, value.metric, own_gpu ? value.gpu_uuid : std::string()};
        values[key].push_back(value.value);
        figures.try_emplace(key, NodeFigure{value.test, value.unit, value.better, 0.0, 0});
    }
    for (auto& [key, figure] : figures) {
        figure.value = stats::median(values[key]);
        figure.ranks = static_cast<int>(values[key].size());
    }
    return figures;
}

std::map<std::string, double> fleet_medians(const std::map<NodeMetricKey, NodeFigure>& figures) {
    std::map<std::string, std::vector<double>> per_metric;
    for (const auto& [key, figure] : figures) per_metric[key.metric].push_back(figure.value);
    std::map<std::string, double> medians;
    for (const auto& [metric, values] : per_metric) medians[metric] = stats::median(values);
    return medians;
}

double counter_rise(double previous_last, const CounterReading& now) {
    if (now.last >= previous_last) return now.last - previous_last;
    return std::max(0.0, now.last - now.first);
}

}  // namespace shakedown::analysis
