#include "driver/list_command.hpp"
#include "core/json_text.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

namespace shakedown {
namespace {

std::string presets_of(const ParamSpec& param) {
    std::vector<std::string> presets;
    for (const auto& [suite, value] : param.suite_defaults) presets.push_back(fmt::format("{} in {}", describe(value), suite));
    return presets.empty() ? "" : fmt::format("; {}", fmt::join(presets, ", "));
}

}  // namespace

std::string format_test_list(const Registry& registry) {
    std::string out = fmt::format("{:<16} {:<24} {}\n", "TEST", "SUITES", "DESCRIPTION");
    for (const auto& test : registry.tests()) {
        const std::string built = registry.is_built(*test) ? "" : fmt::format(" [{}]", not_built_reason(test->spec()));
        out += fmt::format("{:<16} {:<24} {}{}\n", test->key(), fmt::format("{}", fmt::join(test->suites(), ",")),
                           test->description(), built);
        for (const auto& param : test->parameters())
            out += fmt::format("{:<16}   {}={}  {} ({}{})\n", "", param.name, describe(param.default_value), param.description,
                               param.kind_text(), presets_of(param));
    }
    return out;
}

std::string format_test_list_json(const Registry& registry) {
    nlohmann::json tests = nlohmann::json::array();
    for (const auto& test : registry.tests()) {
        const TestSpec& spec = test->spec();
        nlohmann::json parameters = nlohmann::json::array();
        for (const ParamSpec& param : spec.parameters) {
            nlohmann::json presets = nlohmann::json::object();
            for (const auto& [suite, value] : param.suite_defaults) presets[suite] = describe(value);
            parameters.push_back({{"name", param.name},
                                  {"kind", param.kind_text()},
                                  {"default", describe(param.default_value)},
                                  {"description", param.description},
                                  {"auto", param.automatic.empty() ? nlohmann::json(nullptr) : nlohmann::json(param.automatic)},
                                  {"suite_defaults", std::move(presets)}});
        }
        nlohmann::json metrics = nlohmann::json::array();
        for (const MetricSpec& metric : spec.metrics)
            metrics.push_back({{"name", metric.name},
                               {"names", metric.names()},
                               {"unit", metric.unit},
                               {"better", to_string(metric.better)},
                               {"scope", metric.scope == MetricScope::job ? "job" : "rank"},
                               {"bound", to_string(metric.bound)},
                               {"nominal_role", to_string(metric.nominal_role)},
                               {"description", metric.description}});
        nlohmann::json samples = nlohmann::json::array();
        for (const auto& column : spec.samples) samples.push_back({{"name", column.name}, {"unit", column.unit}});
        const bool built = registry.is_built(*test);
        tests.push_back({{"key", spec.key},
                         {"description", spec.description},
                         {"suites", spec.suites},
                         {"built", built},
                         {"not_built_reason", built ? nlohmann::json(nullptr) : nlohmann::json(not_built_reason(spec))},
                         {"min_ranks", spec.min_ranks},
                         {"default_deadline_s", spec.default_deadline_s},
                         {"parameters", std::move(parameters)},
                         {"metrics", std::move(metrics)},
                         {"samples", std::move(samples)}});
    }
    return json_text(tests, 2) + "\n";
}

}  // namespace shakedown
