#include "analysis/rules/congestion_rule.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>

namespace shakedown::analysis {
namespace {

// The MPI test and its NCCL variant report the same figures under their own key.
constexpr std::array<std::string_view, 2> test_keys = {"congestion", "congestion_nccl"};
// The statistics judged. The p99 impact is recorded and shown, not judged, as no other p99
// figure is (default.yaml): on an oversubscribed host it swung from 0.01 to 430 in 25 healthy runs.
constexpr std::array<std::string_view, 2> statistics = {"latency_p50", "bandwidth"};
constexpr std::size_t ranked_shown = 3;

const Metric* find(const TestResult& test, const std::string& name) {
    for (const Metric& metric : test.metrics)
        if (metric.name == name && std::isfinite(metric.value)) return &metric;
    return nullptr;
}

bool is_congestion_test(const std::string& key) {
    return std::find(test_keys.begin(), test_keys.end(), key) != test_keys.end();
}

// The worst of the judged figures named `<test>.<prefix><statistic>_impact` in `test`, if any.
std::optional<std::pair<std::string, const Metric*>> worst(const TestResult& test, std::string_view prefix) {
    std::optional<std::pair<std::string, const Metric*>> found;
    for (const auto statistic : statistics)
        if (const Metric* metric = find(test, fmt::format("{}.{}{}_impact", test.key, prefix, statistic)))
            if (!found || metric->value > found->second->value) found.emplace(std::string(statistic), metric);
    return found;
}

Level level_of(double impact, const AnalysisSettings& s) {
    if (impact >= s.congestion_fail()) return Level::fail;
    return impact >= s.congestion_warn() ? Level::warn : Level::pass;
}

std::string describe(std::string_view statistic) { return statistic == "bandwidth" ? "ring bandwidth" : "p50 ring latency"; }

std::string ranking(const std::vector<NodeImpact>& nodes) {
    std::string text;
    for (std::size_t i = 0; i < std::min(nodes.size(), ranked_shown); ++i)
        text += fmt::format("{}{} {}x ({})", i == 0 ? "" : ", ", nodes[i].who->node, format_number(nodes[i].impact),
                            describe(nodes[i].statistic));
    if (nodes.size() > ranked_shown) text += fmt::format(" and {} more", nodes.size() - ranked_shown);
    return text;
}

Finding impact_finding(const RankIdentity& who, const std::string& test, const Metric& metric, Level level,
                       const AnalysisSettings& settings, std::string reason) {
    Finding finding = make_metric_finding(who, test, metric, level, std::move(reason));
    finding.code = ReasonCode::congestion_impact;
    finding.bound = level == Level::fail ? settings.congestion_fail() : settings.congestion_warn();
    finding.reference = 1.0;               // no impact
    finding.evidence = Evidence::figure;   // load-dependent: measured again before it drains
    return finding;
}

}  // namespace

std::vector<NodeImpact> nodes_by_congestion_impact(const Observations& observations) {
    std::vector<NodeImpact> nodes;
    for (const TestRow& row : observations.tests()) {
        if (!is_congestion_test(row.test->key) || row.test->status == Status::waived) continue;
        if (const auto node = worst(*row.test, "node_")) nodes.push_back({row.who, row.test->key, node->first, node->second->value});
    }
    std::stable_sort(nodes.begin(), nodes.end(), [](const NodeImpact& a, const NodeImpact& b) { return a.impact > b.impact; });
    return nodes;
}

std::vector<Finding> congestion_findings(const Observations& observations, const AnalysisSettings& settings) {
    std::vector<Finding> findings;
    for (const auto key : test_keys) {
        auto more = congestion_findings_of(observations, settings, std::string(key));
        findings.insert(findings.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
    }
    return findings;
}

std::vector<Finding> congestion_findings_of(const Observations& observations, const AnalysisSettings& settings,
                                            const std::string& key) {
    auto nodes = nodes_by_congestion_impact(observations);
    std::erase_if(nodes, [&](const NodeImpact& node) { return node.test != key; });
    const std::string bands =
        fmt::format("warn from {}x, fail from {}x", format_number(settings.congestion_warn()), format_number(settings.congestion_fail()));
    std::vector<Finding> findings;
    for (const NodeImpact& node : nodes) {
        const Level level = level_of(node.impact, settings);
        if (level == Level::pass) continue;
        const TestResult* test = observations.test_of(node.who->rank, key);
        const Metric* metric = find(*test, fmt::format("{}.node_{}_impact", key, node.statistic));
        findings.push_back(impact_finding(
            *node.who, key, *metric, level, settings,
            fmt::format("{}'s links degrade under load: its {} is {}x worse beside the congestors than alone "
                        "({}); the most degraded nodes: {}",
                        node.who->node, describe(node.statistic), format_number(node.impact), bands, ranking(nodes))));
    }
    if (!findings.empty()) return findings;

    // No node stands out: the job-wide figure (the median over the measuring ranks) says whether
    // the fabric as a whole does.
    const TestResult* job = observations.test_of(0, key);
    if (job == nullptr || job->status == Status::waived) return findings;
    const auto figure = worst(*job, "");
    if (!figure) return findings;
    const Level level = level_of(figure->second->value, settings);
    if (level == Level::pass) return findings;
    const auto parameter = [&](const char* name) {
        const auto found = job->parameters.find(name);
        return found != job->parameters.end() ? found->second : std::string("?");
    };
    Finding finding = impact_finding(
        *observations.rank(0), key, *figure->second, level, settings,
        fmt::format("the fabric as a whole degrades under load: the {} of the {} measuring ranks (of {}) is {}x "
                    "worse beside the congestors than alone ({}), no node more than the others{}",
                    describe(figure->first), parameter("measuring_ranks"), parameter("communicator_ranks"),
                    format_number(figure->second->value), bands, nodes.empty() ? "" : " (most degraded: " + ranking(nodes) + ")"));
    finding.cause = Cause::configuration;  // routing or QoS of the fabric: no node to drain
    findings.push_back(std::move(finding));
    return findings;
}

}  // namespace shakedown::analysis
