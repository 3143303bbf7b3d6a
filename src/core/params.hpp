// Per-test parameters, declared: each test says what it accepts (name, kind, default, range,
// choices, whether `auto` is allowed and what the suites preset), and the config loader checks
// the user's YAML against those declarations before anything runs, so a typo, a wrong type or
// a value out of range is one clear line at start-up, not a surprise an hour into the run.
// A test's own check_parameters keeps only the rules that tie several values together.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace shakedown {

enum class ParamKind { integer, real, text, flag, choice, integers, names };

// `auto`: the test picks the value (what it picks is the declaration's `automatic` text).
struct Automatic {
    bool operator==(const Automatic&) const = default;
};
inline constexpr Automatic automatic{};

using ParamValue =
    std::variant<std::int64_t, double, std::string, bool, std::vector<std::int64_t>, std::vector<std::string>, Automatic>;

std::string describe(const ParamValue& value);  // "8", "0.5", "auto", "[8, 1024]", "[write, read]"

struct ParamSpec {
    std::string name;
    ParamKind kind = ParamKind::integer;
    ParamValue default_value;
    std::string description;
    std::optional<double> least;       // integer, real and each element of integers
    bool least_open = false;           // least itself is not allowed (a positive real)
    std::optional<double> most;
    std::vector<std::string> choices;  // choice and each element of names (empty for names: any text)
    std::string automatic;             // not empty: `auto` is accepted; says what the test then picks
    std::map<std::string, ParamValue> suite_defaults;  // the suites' presets, over the default

    static ParamSpec integer(std::string name, ParamValue value, std::string description);
    static ParamSpec real(std::string name, ParamValue value, std::string description);
    static ParamSpec text(std::string name, ParamValue value, std::string description);
    static ParamSpec flag(std::string name, bool value, std::string description);
    static ParamSpec choice(std::string name, std::string value, std::vector<std::string> choices, std::string description);
    static ParamSpec integers(std::string name, std::vector<std::int64_t> values, std::string description);
    static ParamSpec names(std::string name, std::vector<std::string> values, std::vector<std::string> choices,
                           std::string description);

    ParamSpec& at_least(double bound);
    ParamSpec& above(double bound);
    ParamSpec& at_most(double bound);
    ParamSpec& between(double low, double high) { return at_least(low).at_most(high); }
    ParamSpec& allow_auto(std::string what_auto_picks);
    ParamSpec& in_suite(const std::string& suite, ParamValue value);

    // Why `value` is not acceptable ("must be between 1 and 64, got 0"), nothing when it is.
    std::optional<std::string> violation(const ParamValue& value) const;
    // "integer 1..64 or auto", "one of auto, host, gpu", "list of sizes": for `shakedown list`.
    std::string kind_text() const;
};

class TestParams {
public:
    TestParams() = default;
    // Every declared parameter gets `given`, else its preset for `suite`, else its default.
    TestParams(const std::vector<ParamSpec>& specs, std::map<std::string, ParamValue> given,
               const std::string& suite = "");

    std::int64_t integer(const std::string& name) const;                 // not auto
    std::optional<std::int64_t> optional_integer(const std::string& name) const;  // nothing for auto
    double real(const std::string& name) const;                          // an integer given for a real is accepted
    std::optional<double> optional_real(const std::string& name) const;
    const std::string& text(const std::string& name) const;              // text and choice, not auto
    std::optional<std::string> optional_text(const std::string& name) const;  // nothing for auto
    bool flag(const std::string& name) const;
    const std::vector<std::int64_t>& integers(const std::string& name) const;
    const std::vector<std::string>& names(const std::string& name) const;
    bool is_auto(const std::string& name) const;

    // What the test actually used, for the trace's /tests/<key> attributes.
    std::map<std::string, std::string> as_text() const;

private:
    const ParamValue& at(const std::string& name) const;
    std::map<std::string, ParamValue> values_;
};

}  // namespace shakedown
