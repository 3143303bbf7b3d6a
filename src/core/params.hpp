// Per-test parameters: each test declares what it accepts (name, kind, default); the config
// loader checks the user's YAML against those declarations before anything runs, so a typo
// or a wrong type is a clear error at start-up, not a surprise an hour into the run.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <variant>
#include <vector>

namespace shakedown {

enum class ParamKind { integer, real, text, flag };

using ParamValue = std::variant<std::int64_t, double, std::string, bool>;

struct ParamSpec {
    std::string name;
    ParamKind kind;
    ParamValue default_value;
    std::string description;
};

std::string describe(const ParamValue& value);

class TestParams {
public:
    TestParams() = default;
    // Every declared parameter gets its default unless `given` overrides it.
    TestParams(const std::vector<ParamSpec>& specs, std::map<std::string, ParamValue> given);

    std::int64_t integer(const std::string& name) const;
    double real(const std::string& name) const;  // an integer given for a real is accepted
    const std::string& text(const std::string& name) const;
    bool flag(const std::string& name) const;
    // The integer, or InputError "parameter 'name' must be between least and most, got v"
    // (for the tests' check_parameters, so a value out of range is the driver's exit 2).
    std::int64_t integer_between(const std::string& name, std::int64_t least, std::int64_t most) const;

    // What the test actually used, for the trace's /tests/<key> attributes.
    std::map<std::string, std::string> as_text() const;

private:
    const ParamValue& at(const std::string& name) const;
    std::map<std::string, ParamValue> values_;
};

}  // namespace shakedown
