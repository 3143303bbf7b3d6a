#include "analysis/thresholds.hpp"

#include "analysis/default_thresholds.hpp"
#include "core/errors.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <fnmatch.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

namespace shakedown::analysis {
namespace {

constexpr std::string_view rule_keys = "fail_below, warn_below, fail_above, warn_above, fraction_of_nominal";

bool is_glob_pattern(std::string_view key) { return key.find_first_of("*?[") != std::string_view::npos; }

// Walks one YAML document and turns every problem into "source:line: problem".
class ThresholdsParser {
public:
    explicit ThresholdsParser(const std::string& source) : source_(source) {}

    [[noreturn]] void reject(const YAML::Node& where, std::string_view problem) const {
        const int line = where.Mark().line;  // 0-based; -1 when yaml-cpp has no position
        if (line < 0) throw InputError(fmt::format("{}: {}", source_, problem));
        throw InputError(fmt::format("{}:{}: {}", source_, line + 1, problem));
    }

    std::string scalar_text(const YAML::Node& node) const {
        return node.IsScalar() ? node.Scalar() : std::string("(a ") + (node.IsMap() ? "map" : "list") + ")";
    }

    double number(const YAML::Node& node, std::string_view what) const {
        if (!node.IsScalar()) reject(node, fmt::format("{}: expected a number, got {}", what, scalar_text(node)));
        double value = 0.0;
        if (!YAML::convert<double>::decode(node, value) || !std::isfinite(value))
            reject(node, fmt::format("{}: expected a finite number, got '{}'", what, node.Scalar()));
        return value;
    }

    FractionBand fraction_band(const YAML::Node& node, const std::string& metric) const {
        const std::string what = metric + ".fraction_of_nominal";
        if (!node.IsMap()) reject(node, fmt::format("{}: expected a map like {{warn: 0.8, fail: 0.6}}", what));
        FractionBand band;
        for (const auto& item : node) {
            const std::string key = item.first.as<std::string>();
            const std::string field = what + "." + key;
            if (key == "warn") band.warn = number(item.second, field);
            else if (key == "fail") band.fail = number(item.second, field);
            else reject(item.first, fmt::format("{}: unknown key '{}' (expected warn, fail)", what, key));
            const double value = key == "warn" ? *band.warn : *band.fail;
            if (value <= 0.0) reject(item.second, fmt::format("{}: must be above 0, got {}", field, value));
        }
        if (!band.warn && !band.fail) reject(node, fmt::format("{}: needs warn, fail or both", what));
        if (band.warn && band.fail && *band.warn < *band.fail)
            reject(node, fmt::format("{}: warn ({}) is below fail ({}): the WARN band must lie above the FAIL band",
                                     what, *band.warn, *band.fail));
        return band;
    }

    MetricRule rule(const YAML::Node& node, const std::string& metric) const {
        MetricRule rule;
        rule.origin = fmt::format("{}:{}", source_, node.Mark().line + 1);
        if (node.IsNull()) return rule;  // `metric: {}` or `metric:` switches the judgment off
        if (!node.IsMap()) reject(node, fmt::format("{}: expected a map of {}", metric, rule_keys));
        for (const auto& item : node) {
            const std::string key = item.first.as<std::string>();
            const std::string field = metric + "." + key;
            if (key == "fail_below") rule.fail_below = number(item.second, field);
            else if (key == "warn_below") rule.warn_below = number(item.second, field);
            else if (key == "fail_above") rule.fail_above = number(item.second, field);
            else if (key == "warn_above") rule.warn_above = number(item.second, field);
            else if (key == "fraction_of_nominal") rule.fraction_of_nominal = fraction_band(item.second, metric);
            else reject(item.first, fmt::format("{}: unknown key '{}' (expected {})", metric, key, rule_keys));
        }
        if (rule.warn_below && rule.fail_below && *rule.warn_below < *rule.fail_below)
            reject(node, fmt::format("{}: warn_below ({}) is below fail_below ({})", metric, *rule.warn_below,
                                     *rule.fail_below));
        if (rule.warn_above && rule.fail_above && *rule.warn_above > *rule.fail_above)
            reject(node, fmt::format("{}: warn_above ({}) is above fail_above ({})", metric, *rule.warn_above,
                                     *rule.fail_above));
        return rule;
    }

private:
    const std::string& source_;
};

}  // namespace

bool MetricRule::judges_anything() const {
    return fail_below || warn_below || fail_above || warn_above || fraction_of_nominal;
}

Thresholds Thresholds::parse(std::string_view yaml_text, const std::string& source_name) {
    const ThresholdsParser parser(source_name);
    YAML::Node root;
    try {
        root = YAML::Load(std::string(yaml_text));
    } catch (const YAML::ParserException& error) {
        throw InputError(fmt::format("{}:{}: malformed YAML: {}", source_name, error.mark.line + 1, error.msg));
    }
    if (!root.IsMap()) {
        if (root.IsNull()) throw InputError(fmt::format("{}:1: empty thresholds file (expected 'metrics:')", source_name));
        parser.reject(root, "expected a map with the key 'metrics'");
    }

    Thresholds thresholds;
    thresholds.source_ = source_name;
    bool has_metrics = false;
    for (const auto& section : root) {
        const std::string key = section.first.as<std::string>();
        if (key != "metrics") parser.reject(section.first, fmt::format("unknown key '{}' (expected 'metrics')", key));
        has_metrics = true;
        const YAML::Node& metrics = section.second;
        if (metrics.IsNull()) continue;
        if (!metrics.IsMap()) parser.reject(metrics, "metrics: expected a map of metric name -> rule");
        for (const auto& item : metrics) {
            if (!item.first.IsScalar() || item.first.Scalar().empty())
                parser.reject(item.first, "metrics: a metric name must be a non-empty string");
            const std::string name = item.first.Scalar();
            const bool duplicate = std::any_of(thresholds.entries_.begin(), thresholds.entries_.end(),
                                               [&](const Entry& entry) { return entry.key == name; });
            if (duplicate) parser.reject(item.first, fmt::format("metrics: '{}' appears twice", name));
            thresholds.entries_.push_back({name, is_glob_pattern(name), parser.rule(item.second, name)});
        }
    }
    if (!has_metrics) parser.reject(root, "missing the key 'metrics'");
    return thresholds;
}

Thresholds Thresholds::built_in() { return parse(default_thresholds_yaml(), "default.yaml (built in)"); }

Thresholds Thresholds::from_file(const std::filesystem::path& path) {
    std::ifstream in(path);
    if (!in) throw InputError(fmt::format("{}: cannot read the thresholds file", path.string()));
    std::ostringstream text;
    text << in.rdbuf();
    return parse(text.str(), path.string());
}

Thresholds Thresholds::overridden_by(const Thresholds& overrides) const {
    Thresholds merged = *this;
    merged.source_ = source_ + " + " + overrides.source_;
    std::ptrdiff_t next_pattern_slot = 0;
    for (const Entry& override_entry : overrides.entries_) {
        auto same_key = [&](const Entry& entry) { return entry.key == override_entry.key; };
        auto existing = std::find_if(merged.entries_.begin(), merged.entries_.end(), same_key);
        if (existing != merged.entries_.end()) {
            *existing = override_entry;
        } else if (override_entry.is_pattern) {
            // New patterns go in front, in their file order, so the user's patterns win over the defaults'.
            merged.entries_.insert(merged.entries_.begin() + next_pattern_slot++, override_entry);
        } else {
            merged.entries_.push_back(override_entry);
        }
    }
    return merged;
}

const MetricRule* Thresholds::rule_for(std::string_view metric_name) const {
    for (const Entry& entry : entries_)
        if (!entry.is_pattern && entry.key == metric_name) return &entry.rule;
    const std::string name(metric_name);
    for (const Entry& entry : entries_)
        if (entry.is_pattern && fnmatch(entry.key.c_str(), name.c_str(), 0) == 0) return &entry.rule;
    return nullptr;
}

}  // namespace shakedown::analysis
