#include "analysis/rules/figures/credibility_rule.hpp"

#include "core/registry.hpp"
#include "kernels/stream/stream_names.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <string>

namespace shakedown::analysis {
namespace {

// A node's memory bandwidth as its host STREAM ranks measured it together: the sum of their best
// copy and of their best triad, whichever is higher.
std::map<std::string, double> node_memory_bandwidth(const Observations& observations) {
    std::map<std::string, std::map<std::string, double>> sums;  // node -> metric -> sum over ranks
    for (const MetricRow& row : observations.metrics()) {
        if (row.test->key != kernels::stream_names::key) continue;
        if (!ran_on_host(*row.test)) continue;
        if (row.metric->name == kernels::stream_names::copy_max_gbs ||
            row.metric->name == kernels::stream_names::triad_max_gbs)
            sums[row.who->node][row.metric->name] += row.metric->value;
    }
    std::map<std::string, double> bandwidth;
    for (const auto& [node, by_metric] : sums)
        for (const auto& [metric, sum] : by_metric) bandwidth[node] = std::max(bandwidth[node], sum);
    return bandwidth;
}

// The bound the test declares for the figure; none for a figure this binary does not declare.
PhysicalBound bound_of(const TestResult& test, const Metric& metric) {
    const MetricSpec* declared = Registry::instance().declaration(test.key, metric.name);
    return declared != nullptr ? declared->bound : PhysicalBound::none;
}

}  // namespace

std::vector<Finding> credibility_findings(const Observations& observations) {
    const auto memory = node_memory_bandwidth(observations);
    std::vector<Finding> findings;
    for (const MetricRow& row : observations.metrics()) {
        if (bound_of(*row.test, *row.metric) != PhysicalBound::node_memory) continue;
        const auto bound = memory.find(row.who->node);
        if (bound == memory.end() || bound->second <= 0.0 || row.metric->value <= bound->second) continue;
        Finding finding = make_metric_finding(
            *row.who, row.test->key, *row.metric, Level::fail,
            fmt::format("measurement not credible: {} {} is above {}'s memory bandwidth {} (host STREAM, this run): a "
                        "transfer within a node cannot outrun its memory",
                        row.metric->name, with_unit(row.metric->value, row.metric->unit), row.who->node,
                        with_unit(bound->second, "GB/s")),
            FindingSource::credibility);
        finding.cause = Cause::software;
        finding.reference = bound->second;
        finding.bound = bound->second;
        findings.push_back(std::move(finding));
    }
    for (const MetricRow& row : observations.metrics()) {
        const auto& capacity = row.metric->nominal;
        if (bound_of(*row.test, *row.metric) != PhysicalBound::node_network || !capacity || !(*capacity > 0.0) ||
            row.metric->value <= *capacity * network_bound_tolerance)
            continue;
        Finding finding = make_metric_finding(
            *row.who, row.test->key, *row.metric, Level::fail,
            fmt::format("measurement not credible: {} {} is above {}'s network capacity {} (its physical interfaces' "
                        "and RDMA ports' line rates): a transfer between nodes cannot outrun them",
                        row.metric->name, with_unit(row.metric->value, row.metric->unit), row.who->node,
                        with_unit(*capacity, "GB/s")),
            FindingSource::credibility);
        finding.cause = Cause::software;
        finding.reference = *capacity;
        finding.bound = *capacity * network_bound_tolerance;
        findings.push_back(std::move(finding));
    }
    for (const MetricRow& row : observations.metrics()) {
        const auto& bound = row.metric->nominal;
        if (!bound || !(*bound > 0.0) || row.metric->value <= *bound * declared_bound_tolerance) continue;
        if (bound_of(*row.test, *row.metric) != PhysicalBound::nominal) continue;
        Finding finding = make_metric_finding(
            *row.who, row.test->key, *row.metric, Level::fail,
            fmt::format("measurement not credible: {} {} is above its physical bound {} (x{} allowed for timing): the "
                        "bound or the measurement is wrong (a bound measured at another size, a working set the "
                        "caches hold)",
                        row.metric->name, format_number(row.metric->value), format_number(*bound),
                        format_number(declared_bound_tolerance)),
            FindingSource::credibility);
        finding.cause = Cause::software;
        finding.reference = *bound;
        finding.bound = *bound * declared_bound_tolerance;
        findings.push_back(std::move(finding));
    }
    return findings;
}

}  // namespace shakedown::analysis
