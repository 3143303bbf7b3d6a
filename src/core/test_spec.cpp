#include "core/test_spec.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace shakedown {
namespace {

// "a.{x,y}_{p,q}" -> a.x_p, a.x_q, a.y_p, a.y_q
std::vector<std::string> expand(const std::string& pattern) {
    const auto open = pattern.find('{');
    if (open == std::string::npos) return {pattern};
    const auto close = pattern.find('}', open);
    if (close == std::string::npos) return {pattern};
    const std::string head = pattern.substr(0, open);
    const std::vector<std::string> tails = expand(pattern.substr(close + 1));
    std::vector<std::string> names;
    std::size_t start = open + 1;
    while (start <= close) {
        auto comma = pattern.find(',', start);
        if (comma == std::string::npos || comma > close) comma = close;
        const std::string word = pattern.substr(start, comma - start);
        for (const std::string& tail : tails) names.push_back(head + word + tail);
        start = comma + 1;
    }
    return names;
}

// Whether `name` is one of the names `pattern` expands to, without expanding it: the analyzer asks
// this of every figure of a run. An unclosed brace is a literal, as in expand().
bool pattern_matches(std::string_view pattern, std::string_view name) {
    const auto open = pattern.find('{');
    const auto close = open == std::string_view::npos ? open : pattern.find('}', open);
    if (close == std::string_view::npos) return pattern == name;
    const std::string_view head = pattern.substr(0, open);
    if (name.substr(0, head.size()) != head) return false;
    const std::string_view rest = name.substr(head.size());
    const std::string_view tail = pattern.substr(close + 1);
    std::size_t start = open + 1;
    while (start <= close) {
        auto comma = pattern.find(',', start);
        if (comma == std::string_view::npos || comma > close) comma = close;
        const std::string_view word = pattern.substr(start, comma - start);
        if (rest.substr(0, word.size()) == word && pattern_matches(tail, rest.substr(word.size()))) return true;
        start = comma + 1;
    }
    return false;
}

}  // namespace

std::string_view to_string(PhysicalBound bound) {
    switch (bound) {
    case PhysicalBound::nominal: return "nominal";
    case PhysicalBound::node_memory: return "node_memory";
    case PhysicalBound::node_network: return "node_network";
    case PhysicalBound::none: break;
    }
    return "none";
}

std::string_view to_string(NominalRole role) { return role == NominalRole::tolerance ? "tolerance" : "capability"; }

std::vector<std::string> MetricSpec::names() const { return expand(name); }

bool MetricSpec::matches(std::string_view metric_name) const { return pattern_matches(name, metric_name); }

const MetricSpec* TestSpec::metric(std::string_view name) const {
    for (const MetricSpec& declared : metrics)
        if (declared.matches(name)) return &declared;
    return nullptr;
}

std::vector<std::string> TestSpec::metric_names() const {
    std::vector<std::string> names;
    for (const MetricSpec& declared : metrics)
        for (std::string& name : declared.names()) names.push_back(std::move(name));
    return names;
}

void apply_declarations(const TestSpec& spec, TestResult& result) {
    const auto& columns = result.samples.columns();
    const bool same_columns = std::equal(columns.begin(), columns.end(), spec.samples.begin(), spec.samples.end(),
                                         [](const auto& a, const auto& b) { return a.name == b.name && a.unit == b.unit; });
    if (!columns.empty() && !same_columns) {
        result.status = Status::error;
        result.fail(fmt::format("{} recorded samples with other columns than it declares (a bug in shakedown)", spec.key));
    }
    for (Metric& metric : result.metrics) {
        const MetricSpec* declared = spec.metric(metric.name);
        if (declared == nullptr) {
            result.status = Status::error;
            result.fail(fmt::format("{} reported the metric '{}', which it does not declare (a bug in shakedown)", spec.key,
                                    metric.name));
            continue;
        }
        metric.unit = declared->unit;
        metric.better = declared->better;
    }
}

}  // namespace shakedown
