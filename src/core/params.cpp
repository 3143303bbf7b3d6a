#include "core/params.hpp"

#include "core/errors.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace shakedown {

std::string describe(const ParamValue& value) {
    return std::visit(
        [](const auto& v) -> std::string {
            using T = std::decay_t<decltype(v)>;
            if constexpr (std::is_same_v<T, bool>)
                return v ? "true" : "false";
            else
                return fmt::format("{}", v);
        },
        value);
}

TestParams::TestParams(const std::vector<ParamSpec>& specs, std::map<std::string, ParamValue> given) {
    for (const auto& spec : specs) values_[spec.name] = spec.default_value;
    for (auto& [name, value] : given) values_[name] = std::move(value);
}

const ParamValue& TestParams::at(const std::string& name) const {
    auto found = values_.find(name);
    if (found == values_.end()) throw std::logic_error("parameter '" + name + "' was never declared");
    return found->second;
}

std::int64_t TestParams::integer(const std::string& name) const { return std::get<std::int64_t>(at(name)); }

double TestParams::real(const std::string& name) const {
    const auto& value = at(name);
    if (const auto* whole = std::get_if<std::int64_t>(&value)) return static_cast<double>(*whole);
    return std::get<double>(value);
}

const std::string& TestParams::text(const std::string& name) const { return std::get<std::string>(at(name)); }
bool TestParams::flag(const std::string& name) const { return std::get<bool>(at(name)); }

std::int64_t TestParams::integer_between(const std::string& name, std::int64_t least, std::int64_t most) const {
    const std::int64_t value = integer(name);
    if (value < least || value > most)
        throw InputError(fmt::format("parameter '{}' must be between {} and {}, got {}", name, least, most, value));
    return value;
}

std::map<std::string, std::string> TestParams::as_text() const {
    std::map<std::string, std::string> out;
    for (const auto& [name, value] : values_) out[name] = describe(value);
    return out;
}

}  // namespace shakedown
