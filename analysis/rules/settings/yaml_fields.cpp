#include "analysis/rules/settings/yaml_fields.hpp"

#include "core/errors.hpp"

#include <fmt/format.h>

#include <cmath>

namespace shakedown::analysis {

void YamlFields::reject(const YAML::Node& where, std::string_view problem) const {
    const int line = where.Mark().line;  // 0-based; -1 when yaml-cpp has no position
    if (line < 0) throw InputError(fmt::format("{}: {}", source_, problem));
    throw InputError(fmt::format("{}:{}: {}", source_, line + 1, problem));
}

std::string YamlFields::shown(const YAML::Node& node) {
    if (node.IsScalar()) return node.Scalar();
    if (node.IsMap()) return "(a map)";
    if (node.IsSequence()) return "(a list)";
    return "(nothing)";
}

double YamlFields::number(const YAML::Node& node, std::string_view what) const {
    if (!node.IsScalar()) reject(node, fmt::format("{}: expected a number, got {}", what, shown(node)));
    double value = 0.0;
    if (!YAML::convert<double>::decode(node, value) || !std::isfinite(value))
        reject(node, fmt::format("{}: expected a finite number, got '{}'", what, node.Scalar()));
    return value;
}

double YamlFields::positive(const YAML::Node& node, std::string_view what) const {
    const double value = number(node, what);
    if (value <= 0.0) reject(node, fmt::format("{}: must be above 0, got {}", what, value));
    return value;
}

std::string YamlFields::key(const YAML::Node& node, std::string_view where) const {
    if (!node.IsScalar() || node.Scalar().empty()) reject(node, fmt::format("{}: a key must be a non-empty string", where));
    return node.Scalar();
}

std::string YamlFields::choice(const YAML::Node& node, std::string_view what,
                               std::initializer_list<std::string_view> choices) const {
    std::string listed;
    for (std::string_view choice : choices) listed += (listed.empty() ? "" : ", ") + std::string(choice);
    if (node.IsScalar())
        for (std::string_view choice : choices)
            if (node.Scalar() == choice) return node.Scalar();
    reject(node, fmt::format("{}: expected one of {}, got {}", what, listed, shown(node)));
}

}  // namespace shakedown::analysis
