// Typed reading of a YAML document with every problem as one "source:line: problem" InputError:
// shared by the per-metric rules and the analysis settings of a thresholds file.
#pragma once

#include <yaml-cpp/yaml.h>

#include <string>
#include <string_view>

namespace shakedown::analysis {

class YamlFields {
public:
    explicit YamlFields(std::string source) : source_(std::move(source)) {}

    const std::string& source() const { return source_; }

    [[noreturn]] void reject(const YAML::Node& where, std::string_view problem) const;

    // "(a map)", "(a list)" or the scalar itself: what a message shows of a wrong value.
    static std::string shown(const YAML::Node& node);

    // A finite number; `what` names the field in the message ("stream.triad_gbs.fail_below").
    double number(const YAML::Node& node, std::string_view what) const;
    // A finite number above 0.
    double positive(const YAML::Node& node, std::string_view what) const;
    // A key of a map as text (keys are scalars in every file we accept).
    std::string key(const YAML::Node& node, std::string_view where) const;
    // One of `choices` (comma-separated in messages).
    std::string choice(const YAML::Node& node, std::string_view what, std::initializer_list<std::string_view> choices) const;

private:
    std::string source_;
};

}  // namespace shakedown::analysis
