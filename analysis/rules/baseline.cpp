#include "analysis/rules/baseline.hpp"

#include <fmt/format.h>

#include <cmath>
#include <map>
#include <tuple>

namespace shakedown::analysis {
namespace {

// Ranks are matched by node and local rank, not by world rank: a rerun on the same nodes with a
// different node order keeps each node's figures comparable.
using MetricKey = std::tuple<std::string, int, std::string>;  // node, local rank, metric

struct BaselineValue {
    double value = 0.0;
    std::string unit;
};

}  // namespace

BaselineComparison compare_with_baseline(const Observations& run, const Observations& baseline,
                                         const AnalysisSettings& settings) {
    BaselineComparison comparison;
    comparison.baseline_run_id = baseline.run().manifest.run_id;
    comparison.baseline_dir = baseline.run().dir;
    comparison.tolerance = settings.tolerance();

    std::map<MetricKey, BaselineValue> before;
    for (const MetricRow& row : baseline.metrics())
        if (std::isfinite(row.metric->value))
            before[{row.who->node, row.who->local_rank, row.metric->name}] = {row.metric->value, row.metric->unit};

    const Level level = settings.regression_fails() ? Level::fail : Level::warn;
    std::size_t matched = 0;
    for (const MetricRow& row : run.metrics()) {
        const Metric& metric = *row.metric;
        auto found = before.find({row.who->node, row.who->local_rank, metric.name});
        if (found == before.end() || !std::isfinite(metric.value)) continue;
        ++matched;
        ++comparison.compared;
        const double old_value = found->second.value;
        if (old_value == 0.0) continue;
        const double change = (metric.value - old_value) / std::fabs(old_value);  // + is higher
        const double worse_by = metric.better == Better::higher ? -change : change;
        if (worse_by < -comparison.tolerance) ++comparison.improvements;
        if (worse_by <= comparison.tolerance) continue;
        ++comparison.regressions;
        const std::string unit = metric.unit.empty() ? "" : " " + metric.unit;
        Finding finding = make_metric_finding(
            *row.who, row.test->key, metric, level,
            fmt::format("{} {}{} is {:.0f} % {} than the baseline's {}{} (run {}, same node and local rank {}; tolerance {:.0f} %)",
                        metric.name, format_number(metric.value), unit, worse_by * 100,
                        metric.better == Better::higher ? "lower" : "higher", format_number(old_value), unit,
                        comparison.baseline_run_id, row.who->local_rank, comparison.tolerance * 100),
            FindingSource::baseline);
        finding.reference = old_value;
        const double allowed = comparison.tolerance * std::fabs(old_value);
        finding.bound = metric.better == Better::higher ? old_value - allowed : old_value + allowed;
        finding.evidence = Evidence::figure;
        comparison.findings.push_back(std::move(finding));
    }
    comparison.missing = static_cast<int>(before.size() - std::min(before.size(), matched));
    return comparison;
}

}  // namespace shakedown::analysis
