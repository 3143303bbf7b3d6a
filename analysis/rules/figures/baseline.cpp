#include "analysis/rules/figures/baseline.hpp"

#include <fmt/format.h>

#include <cmath>

namespace shakedown::analysis {
namespace {

double bound_of(double old_value, double tolerance, Better better) {
    const double allowed = tolerance * std::fabs(old_value);
    return better == Better::higher ? old_value - allowed : old_value + allowed;
}

// The run's figures as the comparison takes them, and the row each came from.
std::vector<ComparedValue> compared_values(const Observations& observations, std::vector<const MetricRow*>* rows) {
    std::vector<ComparedValue> values;
    for (const MetricRow& row : observations.metrics()) {
        values.push_back({.node = row.who->node,
                          .local_rank = row.who->local_rank,
                          .gpu_uuid = measured_by_its_gpu(*row.who, *row.test) ? row.who->gpu_uuid : std::string(),
                          .test = row.test->key,
                          .metric = row.metric->name,
                          .unit = row.metric->unit,
                          .better = row.metric->better,
                          .value = row.metric->value});
        if (rows != nullptr) rows->push_back(&row);
    }
    return values;
}

std::string where(const FigureChange& change, const MetricRow& row) {
    if (change.as == ComparedAs::gpu) return fmt::format("same GPU {}", change.gpu_uuid);
    return fmt::format("same node and local rank {}", row.who->local_rank);
}

RunRegression run_regression(const FigureChange& change, Level level, const BaselineComparison& comparison) {
    const double value = *change.new_value;
    const double old_value = *change.old_value;
    const std::string unit = change.unit.empty() ? "" : " " + change.unit;
    return {.test = change.test,
            .metric = change.metric,
            .unit = change.unit,
            .better = change.better,
            .value = value,
            .baseline = old_value,
            .worse_by = *change.worse_by,
            .bound = bound_of(old_value, comparison.tolerance, change.better),
            .ranks = change.new_values,
            .level = level,
            .reason = fmt::format("{} {}{} (the job's median over {} rank(s)) is {:.0f} % {} than the baseline's {}{} "
                                  "(run {}; tolerance {:.0f} %): a job-wide figure, compared once for the run, no node "
                                  "judged by it",
                                  change.metric, format_number(value), unit, change.new_values, *change.worse_by * 100,
                                  change.better == Better::higher ? "lower" : "higher", format_number(old_value), unit,
                                  comparison.baseline_run_id, comparison.tolerance * 100)};
}

}  // namespace

BaselineComparison compare_with_baseline(const Observations& run, const Observations& baseline,
                                         const AnalysisSettings& settings) {
    BaselineComparison comparison;
    comparison.baseline_run_id = baseline.run().manifest.run_id;
    comparison.baseline_dir = baseline.run().dir;
    comparison.tolerance = settings.tolerance();
    const Level level = settings.regression_fails() ? Level::fail : Level::warn;

    std::vector<const MetricRow*> rows;
    const std::vector<ComparedValue> now = compared_values(run, &rows);
    for (const FigureChange& change : compare_figures(compared_values(baseline, nullptr), now, comparison.tolerance)) {
        const bool job = change.as == ComparedAs::job;
        if (change.change == Change::missing) ++comparison.missing;
        if (!change.old_value || !change.new_value) continue;
        ++(job ? comparison.job_wide_compared : comparison.compared);
        // From a baseline of 0 there is no fraction to state: compared, never a regression.
        if (!change.worse_by) continue;
        if (change.change == Change::better) ++comparison.improvements;
        if (change.change != Change::worse) continue;
        if (job) {
            comparison.run_regressions.push_back(run_regression(change, level, comparison));
            continue;
        }
        const MetricRow& row = *rows.at(*change.new_index);
        const Metric& metric = *row.metric;
        const double old_value = *change.old_value;
        const std::string unit = metric.unit.empty() ? "" : " " + metric.unit;
        ++comparison.regressions;
        Finding finding = make_metric_finding(
            *row.who, row.test->key, metric, level,
            fmt::format("{} {}{} is {:.0f} % {} than the baseline's {}{} (run {}, {}; tolerance {:.0f} %)", metric.name,
                        format_number(metric.value), unit, *change.worse_by * 100,
                        metric.better == Better::higher ? "lower" : "higher", format_number(old_value), unit,
                        comparison.baseline_run_id, where(change, row), comparison.tolerance * 100),
            FindingSource::baseline);
        finding.reference = old_value;
        finding.bound = bound_of(old_value, comparison.tolerance, metric.better);
        finding.evidence = Evidence::figure;
        comparison.findings.push_back(std::move(finding));
    }
    return comparison;
}

}  // namespace shakedown::analysis
