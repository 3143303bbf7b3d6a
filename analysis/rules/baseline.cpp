#include "analysis/rules/baseline.hpp"

#include "core/registry.hpp"
#include "stats/summary.hpp"

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

// How much worse `value` is than `old_value` in the metric's direction (negative: better).
double worse_by(double value, double old_value, Better better) {
    const double change = (value - old_value) / std::fabs(old_value);  // + is higher
    return better == Better::higher ? -change : change;
}

double bound_of(double old_value, double tolerance, Better better) {
    const double allowed = tolerance * std::fabs(old_value);
    return better == Better::higher ? old_value - allowed : old_value + allowed;
}

// A metric whose unit is "rank" names a rank (mpi_coll.slowest_rank): an identity, not a figure
// that can be better or worse than before.
bool is_identity(const Metric& metric) { return metric.unit == "rank"; }

// The spec lookup expands every declaration's pattern: asked once per (test, metric).
class ScopeCache {
public:
    bool job_wide(const std::string& test, const std::string& metric) {
        auto [entry, inserted] = known_.try_emplace({test, metric}, false);
        if (inserted) entry->second = is_job_wide(test, metric);
        return entry->second;
    }

private:
    std::map<std::pair<std::string, std::string>, bool> known_;
};

// A job-wide metric's values over the ranks of one run, in the order the run first records it.
struct JobFigure {
    std::string test;
    std::string unit;
    Better better = Better::higher;
    std::vector<double> values;
};

struct JobFigures {
    std::vector<std::string> order;  // metric names, first appearance
    std::map<std::string, JobFigure> by_metric;

    void add(const MetricRow& row) {
        auto [entry, inserted] = by_metric.try_emplace(row.metric->name);
        if (inserted) {
            order.push_back(row.metric->name);
            entry->second = {row.test->key, row.metric->unit, row.metric->better, {}};
        }
        entry->second.values.push_back(row.metric->value);
    }
};

void compare_job_wide(const JobFigures& now, const JobFigures& before, Level level, BaselineComparison& comparison) {
    for (const std::string& name : now.order) {
        const JobFigure& figure = now.by_metric.at(name);
        const auto found = before.by_metric.find(name);
        if (found == before.by_metric.end()) continue;
        const double value = stats::median(figure.values);
        const double old_value = stats::median(found->second.values);
        ++comparison.job_wide_compared;
        if (old_value == 0.0) continue;
        const double worse = worse_by(value, old_value, figure.better);
        if (worse < -comparison.tolerance) ++comparison.improvements;
        if (worse <= comparison.tolerance) continue;
        const std::string unit = figure.unit.empty() ? "" : " " + figure.unit;
        comparison.run_regressions.push_back(
            {.test = figure.test,
             .metric = name,
             .unit = figure.unit,
             .better = figure.better,
             .value = value,
             .baseline = old_value,
             .worse_by = worse,
             .bound = bound_of(old_value, comparison.tolerance, figure.better),
             .ranks = static_cast<int>(figure.values.size()),
             .level = level,
             .reason = fmt::format("{} {}{} (the job's median over {} rank(s)) is {:.0f} % {} than the baseline's {}{} "
                                   "(run {}; tolerance {:.0f} %): a job-wide figure, compared once for the run, no node "
                                   "judged by it",
                                   name, format_number(value), unit, figure.values.size(), worse * 100,
                                   figure.better == Better::higher ? "lower" : "higher", format_number(old_value), unit,
                                   comparison.baseline_run_id, comparison.tolerance * 100)});
    }
    for (const std::string& name : before.order)
        if (!now.by_metric.count(name)) ++comparison.missing;
}

}  // namespace

bool is_job_wide(const std::string& test, const std::string& metric) {
    const Test* declared = Registry::instance().find(test);
    const MetricSpec* spec = declared != nullptr ? declared->spec().metric(metric) : nullptr;
    return spec != nullptr && spec->scope == MetricScope::job;
}

BaselineComparison compare_with_baseline(const Observations& run, const Observations& baseline,
                                         const AnalysisSettings& settings) {
    BaselineComparison comparison;
    comparison.baseline_run_id = baseline.run().manifest.run_id;
    comparison.baseline_dir = baseline.run().dir;
    comparison.tolerance = settings.tolerance();
    ScopeCache scopes;

    std::map<MetricKey, BaselineValue> before;
    JobFigures job_before;
    for (const MetricRow& row : baseline.metrics()) {
        if (!std::isfinite(row.metric->value) || is_identity(*row.metric)) continue;
        if (scopes.job_wide(row.test->key, row.metric->name)) job_before.add(row);
        else before[{row.who->node, row.who->local_rank, row.metric->name}] = {row.metric->value, row.metric->unit};
    }

    const Level level = settings.regression_fails() ? Level::fail : Level::warn;
    std::size_t matched = 0;
    JobFigures job_now;
    for (const MetricRow& row : run.metrics()) {
        const Metric& metric = *row.metric;
        if (!std::isfinite(metric.value) || is_identity(metric)) continue;
        if (scopes.job_wide(row.test->key, metric.name)) {
            job_now.add(row);
            continue;
        }
        auto found = before.find({row.who->node, row.who->local_rank, metric.name});
        if (found == before.end()) continue;
        ++matched;
        ++comparison.compared;
        const double old_value = found->second.value;
        if (old_value == 0.0) continue;
        const double worse = worse_by(metric.value, old_value, metric.better);
        if (worse < -comparison.tolerance) ++comparison.improvements;
        if (worse <= comparison.tolerance) continue;
        ++comparison.regressions;
        const std::string unit = metric.unit.empty() ? "" : " " + metric.unit;
        Finding finding = make_metric_finding(
            *row.who, row.test->key, metric, level,
            fmt::format("{} {}{} is {:.0f} % {} than the baseline's {}{} (run {}, same node and local rank {}; tolerance {:.0f} %)",
                        metric.name, format_number(metric.value), unit, worse * 100,
                        metric.better == Better::higher ? "lower" : "higher", format_number(old_value), unit,
                        comparison.baseline_run_id, row.who->local_rank, comparison.tolerance * 100),
            FindingSource::baseline);
        finding.reference = old_value;
        finding.bound = bound_of(old_value, comparison.tolerance, metric.better);
        finding.evidence = Evidence::figure;
        comparison.findings.push_back(std::move(finding));
    }
    comparison.missing = static_cast<int>(before.size() - std::min(before.size(), matched));
    compare_job_wide(job_now, job_before, level, comparison);
    return comparison;
}

}  // namespace shakedown::analysis
