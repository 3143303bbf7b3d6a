#include "driver/list_command.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

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

}  // namespace shakedown
