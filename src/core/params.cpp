#include "core/params.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace shakedown {
namespace {

// Whole numbers as whole numbers ("549755813888", not "5.49755813888e+11").
std::string number_text(double value) {
    if (std::isfinite(value) && value == std::floor(value) && std::fabs(value) < 9.2e18)
        return fmt::format("{}", static_cast<std::int64_t>(value));
    return fmt::format("{}", value);
}

std::string range_text(const std::optional<double>& least, bool least_open, const std::optional<double>& most) {
    if (least && least_open && most) return fmt::format("above {} and at most {}", number_text(*least), number_text(*most));
    if (least && most) return fmt::format("between {} and {}", number_text(*least), number_text(*most));
    if (least) return fmt::format("{} {}", least_open ? "above" : "at least", number_text(*least));
    if (most) return fmt::format("at most {}", number_text(*most));
    return "";
}

bool in_range(double value, const std::optional<double>& least, bool least_open, const std::optional<double>& most) {
    const bool above_least = !least || (least_open ? value > *least : value >= *least);
    return above_least && (!most || value <= *most);
}

template <typename T>
const char* kind_name() {
    if constexpr (std::is_same_v<T, std::int64_t>) return "a whole number";
    if constexpr (std::is_same_v<T, double>) return "a number";
    if constexpr (std::is_same_v<T, std::string>) return "text";
    if constexpr (std::is_same_v<T, bool>) return "true or false";
    return "a list";
}

}  // namespace

std::string describe(const ParamValue& value) {
    return std::visit(
        [](const auto& v) -> std::string {
            using T = std::decay_t<decltype(v)>;
            if constexpr (std::is_same_v<T, bool>)
                return v ? "true" : "false";
            else if constexpr (std::is_same_v<T, Automatic>)
                return "auto";
            else if constexpr (std::is_same_v<T, std::vector<std::int64_t>> || std::is_same_v<T, std::vector<std::string>>)
                return fmt::format("[{}]", fmt::join(v, ", "));
            else
                return fmt::format("{}", v);
        },
        value);
}

ParamSpec ParamSpec::integer(std::string name, ParamValue value, std::string description) {
    return {std::move(name), ParamKind::integer, std::move(value), std::move(description)};
}
ParamSpec ParamSpec::real(std::string name, ParamValue value, std::string description) {
    return {std::move(name), ParamKind::real, std::move(value), std::move(description)};
}
ParamSpec ParamSpec::text(std::string name, ParamValue value, std::string description) {
    return {std::move(name), ParamKind::text, std::move(value), std::move(description)};
}
ParamSpec ParamSpec::flag(std::string name, bool value, std::string description) {
    return {std::move(name), ParamKind::flag, value, std::move(description)};
}
ParamSpec ParamSpec::choice(std::string name, std::string value, std::vector<std::string> choices,
                            std::string description) {
    ParamSpec spec{std::move(name), ParamKind::choice, std::move(value), std::move(description)};
    spec.choices = std::move(choices);
    return spec;
}
ParamSpec ParamSpec::integers(std::string name, std::vector<std::int64_t> values, std::string description) {
    return {std::move(name), ParamKind::integers, std::move(values), std::move(description)};
}
ParamSpec ParamSpec::names(std::string name, std::vector<std::string> values, std::vector<std::string> choices,
                           std::string description) {
    ParamSpec spec{std::move(name), ParamKind::names, std::move(values), std::move(description)};
    spec.choices = std::move(choices);
    return spec;
}

ParamSpec& ParamSpec::at_least(double bound) {
    least = bound;
    least_open = false;
    return *this;
}
ParamSpec& ParamSpec::above(double bound) {
    least = bound;
    least_open = true;
    return *this;
}
ParamSpec& ParamSpec::at_most(double bound) {
    most = bound;
    return *this;
}
ParamSpec& ParamSpec::allow_auto(std::string what_auto_picks) {
    automatic = std::move(what_auto_picks);
    return *this;
}
ParamSpec& ParamSpec::in_suite(const std::string& suite, ParamValue value) {
    suite_defaults[suite] = std::move(value);
    return *this;
}

std::optional<std::string> ParamSpec::violation(const ParamValue& value) const {
    if (std::holds_alternative<Automatic>(value)) {
        if (automatic.empty()) return std::string("does not take auto");
        return std::nullopt;
    }
    const auto wrong_kind = [&](const char* wanted) { return fmt::format("must be {}, not {}", wanted, describe(value)); };
    const auto out_of_range = [&](double number, const std::string& as_given) -> std::optional<std::string> {
        if (!std::isfinite(number)) return std::string("must be a finite number");
        if (in_range(number, least, least_open, most)) return std::nullopt;
        return fmt::format("must be {}, got {}", range_text(least, least_open, most), as_given);
    };
    const auto whole_out_of_range = [&](std::int64_t number) {
        return out_of_range(static_cast<double>(number), fmt::format("{}", number));
    };
    const auto unknown_choice = [&](const std::string& name) -> std::optional<std::string> {
        if (choices.empty() || std::find(choices.begin(), choices.end(), name) != choices.end()) return std::nullopt;
        return fmt::format("unknown value '{}' (known: {})", name, fmt::join(choices, ", "));
    };
    switch (kind) {
    case ParamKind::integer:
        if (const auto* whole = std::get_if<std::int64_t>(&value)) return whole_out_of_range(*whole);
        return wrong_kind(kind_name<std::int64_t>());
    case ParamKind::real:
        if (const auto* whole = std::get_if<std::int64_t>(&value)) return whole_out_of_range(*whole);
        if (const auto* real = std::get_if<double>(&value)) return out_of_range(*real, fmt::format("{}", *real));
        return wrong_kind(kind_name<double>());
    case ParamKind::text:
        if (std::holds_alternative<std::string>(value)) return std::nullopt;
        return wrong_kind(kind_name<std::string>());
    case ParamKind::flag:
        if (std::holds_alternative<bool>(value)) return std::nullopt;
        return wrong_kind(kind_name<bool>());
    case ParamKind::choice:
        if (const auto* name = std::get_if<std::string>(&value)) return unknown_choice(*name);
        return wrong_kind(kind_name<std::string>());
    case ParamKind::integers:
        if (const auto* list = std::get_if<std::vector<std::int64_t>>(&value)) {
            if (list->empty()) return std::string("must name at least one value");
            for (const std::int64_t element : *list)
                if (auto problem = whole_out_of_range(element)) return problem;
            return std::nullopt;
        }
        return wrong_kind("a list of whole numbers");
    case ParamKind::names:
        if (const auto* list = std::get_if<std::vector<std::string>>(&value)) {
            if (list->empty()) return std::string("must name at least one value");
            for (const std::string& element : *list)
                if (auto problem = unknown_choice(element)) return problem;
            return std::nullopt;
        }
        return wrong_kind("a list of names");
    }
    return std::string("has an unknown kind");
}

std::string ParamSpec::kind_text() const {
    std::string text;
    const std::string range = range_text(least, least_open, most);
    switch (kind) {
    case ParamKind::integer: text = range.empty() ? "integer" : "integer " + range; break;
    case ParamKind::real: text = range.empty() ? "number" : "number " + range; break;
    case ParamKind::text: text = "text"; break;
    case ParamKind::flag: text = "true/false"; break;
    case ParamKind::choice: text = fmt::format("one of {}", fmt::join(choices, ", ")); break;
    case ParamKind::integers: text = range.empty() ? "list of integers" : "list of integers " + range; break;
    case ParamKind::names:
        text = choices.empty() ? "list of names" : fmt::format("list of {}", fmt::join(choices, ", "));
        break;
    }
    if (!automatic.empty()) text += ", or auto: " + automatic;
    return text;
}

TestParams::TestParams(const std::vector<ParamSpec>& specs, std::map<std::string, ParamValue> given,
                       const std::string& suite) {
    for (const auto& spec : specs) {
        const auto preset = spec.suite_defaults.find(suite);
        values_[spec.name] = preset != spec.suite_defaults.end() ? preset->second : spec.default_value;
    }
    for (auto& [name, value] : given) values_[name] = std::move(value);
}

const ParamValue& TestParams::at(const std::string& name) const {
    auto found = values_.find(name);
    if (found == values_.end()) throw std::logic_error("parameter '" + name + "' was never declared");
    return found->second;
}

std::int64_t TestParams::integer(const std::string& name) const {
    const auto value = optional_integer(name);
    if (!value) throw std::logic_error("parameter '" + name + "' is auto: read it with optional_integer");
    return *value;
}

std::optional<std::int64_t> TestParams::optional_integer(const std::string& name) const {
    const auto& value = at(name);
    if (std::holds_alternative<Automatic>(value)) return std::nullopt;
    return std::get<std::int64_t>(value);
}

double TestParams::real(const std::string& name) const {
    const auto value = optional_real(name);
    if (!value) throw std::logic_error("parameter '" + name + "' is auto: read it with optional_real");
    return *value;
}

std::optional<double> TestParams::optional_real(const std::string& name) const {
    const auto& value = at(name);
    if (std::holds_alternative<Automatic>(value)) return std::nullopt;
    if (const auto* whole = std::get_if<std::int64_t>(&value)) return static_cast<double>(*whole);
    return std::get<double>(value);
}

const std::string& TestParams::text(const std::string& name) const { return std::get<std::string>(at(name)); }
std::optional<std::string> TestParams::optional_text(const std::string& name) const {
    const auto& value = at(name);
    if (std::holds_alternative<Automatic>(value)) return std::nullopt;
    return std::get<std::string>(value);
}
bool TestParams::flag(const std::string& name) const { return std::get<bool>(at(name)); }
const std::vector<std::int64_t>& TestParams::integers(const std::string& name) const {
    return std::get<std::vector<std::int64_t>>(at(name));
}
const std::vector<std::string>& TestParams::names(const std::string& name) const {
    return std::get<std::vector<std::string>>(at(name));
}
bool TestParams::is_auto(const std::string& name) const { return std::holds_alternative<Automatic>(at(name)); }

std::map<std::string, std::string> TestParams::as_text() const {
    std::map<std::string, std::string> out;
    for (const auto& [name, value] : values_) out[name] = describe(value);
    return out;
}

}  // namespace shakedown
