#include "analysis/baseline.hpp"

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

BaselineComparison compare_with_baseline(const LoadedRun& run, const LoadedRun& baseline,
                                         const AnalysisSettings& settings) {
    BaselineComparison comparison;
    comparison.baseline_run_id = baseline.manifest.run_id;
    comparison.baseline_dir = baseline.dir;
    comparison.tolerance = settings.tolerance();

    std::map<MetricKey, BaselineValue> before;
    for (const RankRecord& record : baseline.ranks) {
        if (!record.trace) continue;
        for (const TestResult& test : record.trace->tests)
            for (const Metric& metric : test.metrics)
                if (std::isfinite(metric.value))
                    before[{record.node, record.local_rank, metric.name}] = {metric.value, metric.unit};
    }

    const Level level = settings.regression_fails() ? Level::fail : Level::warn;
    std::size_t matched = 0;
    for (const RankRecord& record : run.ranks) {
        if (!record.trace) continue;
        for (const TestResult& test : record.trace->tests) {
            if (test.status == Status::waived) continue;
            for (const Metric& metric : test.metrics) {
                auto found = before.find({record.node, record.local_rank, metric.name});
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
                Finding finding = make_finding(record.node, record.rank, test.key, metric.name, metric.value, metric.unit,
                                metric.nominal, level,
                                fmt::format("{} {}{} is {:.0f} % {} than the baseline's {}{} (run {}, same node and "
                                            "local rank {}; tolerance {:.0f} %)",
                                            metric.name, format_number(metric.value), unit, worse_by * 100,
                                            metric.better == Better::higher ? "lower" : "higher",
                                            format_number(old_value), unit, baseline.manifest.run_id, record.local_rank,
                                            comparison.tolerance * 100));
                finding.source = FindingSource::baseline;
                finding.gpu = record.gpu;
                finding.reference = old_value;
                comparison.findings.push_back(std::move(finding));
            }
        }
    }
    comparison.missing = static_cast<int>(before.size() - std::min(before.size(), matched));
    return comparison;
}

}  // namespace shakedown::analysis
