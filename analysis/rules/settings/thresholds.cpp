#include "analysis/rules/settings/thresholds.hpp"

#include "core/nearest_names.hpp"

#include "analysis/rules/settings/default_thresholds.hpp"
#include "analysis/rules/settings/yaml_fields.hpp"
#include "core/errors.hpp"
#include "core/input_file.hpp"
#include "core/input_limits.hpp"
#include "core/nearest_names.hpp"
#include "core/yaml_document.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <yaml-cpp/yaml.h>

#include <fnmatch.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

namespace shakedown::analysis {
namespace {

constexpr std::string_view rule_keys =
    "fail_below, warn_below, fail_above, warn_above, fraction_of_nominal, gpu_fraction_of_nominal, calibrated, "
    "fleet_outlier, above_nominal";
constexpr std::string_view top_level_keys =
    "metrics, calibrated, fleet, baseline, telemetry, links, collectives, price, port_counters, gpu_health";

bool is_glob_pattern(std::string_view key) { return key.find_first_of("*?[") != std::string_view::npos; }

// Walks the `metrics:` section and turns every problem into "source:line: problem".
class RuleParser {
public:
    explicit RuleParser(const YamlFields& fields) : fields_(fields) {}

    FractionBand fraction_band(const YAML::Node& node, const std::string& metric) const {
        const std::string what = metric + ".fraction_of_nominal";
        if (!node.IsMap()) fields_.reject(node, fmt::format("{}: expected a map like {{warn: 0.8, fail: 0.6}}", what));
        FractionBand band;
        for (const auto& item : node) {
            const std::string key = fields_.key(item.first, what);
            const std::string field = what + "." + key;
            if (key == "warn") band.warn = fields_.positive(item.second, field);
            else if (key == "fail") band.fail = fields_.positive(item.second, field);
            else fields_.reject(item.first, fmt::format("{}: unknown key '{}' (expected warn, fail)", what, key));
        }
        if (!band.warn && !band.fail) fields_.reject(node, fmt::format("{}: needs warn, fail or both", what));
        if (band.warn && band.fail && *band.warn < *band.fail)
            fields_.reject(node, fmt::format("{}: warn ({}) is below fail ({}): the WARN band must lie above the FAIL band",
                                             what, *band.warn, *band.fail));
        return band;
    }

    FleetBand fleet_band(const YAML::Node& node, const std::string& metric) const {
        const std::string what = metric + ".fleet_outlier";
        FleetBand band;
        if (node.IsScalar() && (node.Scalar() == "true" || node.Scalar() == "on")) return band;  // the defaults
        if (!node.IsMap())
            fields_.reject(node, fmt::format("{}: expected true or a map like {{k: 4, warn_deviation: 0.1, "
                                             "fail_deviation: 0.25}}",
                                             what));
        for (const auto& item : node) {
            const std::string key = fields_.key(item.first, what);
            const std::string field = what + "." + key;
            if (key == "k") band.k = fields_.positive(item.second, field);
            else if (key == "warn_deviation") band.warn_deviation = fields_.positive(item.second, field);
            else if (key == "fail_deviation") band.fail_deviation = fields_.positive(item.second, field);
            else
                fields_.reject(item.first,
                               fmt::format("{}: unknown key '{}' (expected k, warn_deviation, fail_deviation)", what, key));
        }
        if (band.warn_deviation >= 1.0) fields_.reject(node, fmt::format("{}: warn_deviation must be below 1", what));
        if (band.fail_deviation && *band.fail_deviation < band.warn_deviation)
            fields_.reject(node, fmt::format("{}: fail_deviation ({}) is below warn_deviation ({})", what,
                                             *band.fail_deviation, band.warn_deviation));
        return band;
    }

    MetricRule rule(const YAML::Node& node, const std::string& metric) const {
        MetricRule rule;
        rule.origin = fmt::format("{}:{}", fields_.source(), node.Mark().line + 1);
        if (node.IsNull()) return rule;  // `metric: {}` or `metric:` switches the judgment off
        if (!node.IsMap()) fields_.reject(node, fmt::format("{}: expected a map of {}", metric, rule_keys));
        for (const auto& item : node) {
            const std::string key = fields_.key(item.first, metric);
            const std::string field = metric + "." + key;
            if (key == "fail_below") rule.fail_below = fields_.number(item.second, field);
            else if (key == "warn_below") rule.warn_below = fields_.number(item.second, field);
            else if (key == "fail_above") rule.fail_above = fields_.number(item.second, field);
            else if (key == "warn_above") rule.warn_above = fields_.number(item.second, field);
            else if (key == "fraction_of_nominal") rule.fraction_of_nominal = fraction_band(item.second, metric);
            else if (key == "gpu_fraction_of_nominal") rule.gpu_fraction_of_nominal = fraction_band(item.second, metric);
            else if (key == "calibrated") rule.calibrated = fields_.choice(item.second, field, {"true", "false"}) == "true";
            else if (key == "fleet_outlier") rule.fleet_outlier = fleet_band(item.second, metric);
            else if (key == "above_nominal") {
                rule.above_nominal_warns_at = fields_.positive(item.second, field);
                if (*rule.above_nominal_warns_at < 1.0)
                    fields_.reject(item.second,
                                   fmt::format("{}: above_nominal is a ratio to the nominal, at least 1", field));
            } else fields_.reject(item.first, fmt::format("{}: unknown key '{}' (expected {})", metric, key, rule_keys));
        }
        if (rule.warn_below && rule.fail_below && *rule.warn_below < *rule.fail_below)
            fields_.reject(node, fmt::format("{}: warn_below ({}) is below fail_below ({})", metric, *rule.warn_below,
                                             *rule.fail_below));
        if (rule.warn_above && rule.fail_above && *rule.warn_above > *rule.fail_above)
            fields_.reject(node, fmt::format("{}: warn_above ({}) is above fail_above ({})", metric, *rule.warn_above,
                                             *rule.fail_above));
        return rule;
    }

private:
    const YamlFields& fields_;
};

// One document, no key twice (src/core/yaml_document.hpp): a thresholds file with a metric
// given twice would judge by whichever yaml-cpp kept.
YAML::Node load_yaml(std::string_view yaml_text, const std::string& source_name) {
    try {
        return load_yaml_document(std::string(yaml_text), source_name);
    } catch (const YAML::Exception& error) {  // yaml-cpp's other failures (deep nesting, ...)
        throw InputError(fmt::format("{}: malformed YAML: {}", source_name, error.what()));
    }
}

}  // namespace

bool MetricRule::judges_anything() const {
    return fail_below || warn_below || fail_above || warn_above || fraction_of_nominal || gpu_fraction_of_nominal ||
           calibrated || above_nominal_warns_at;
}

Thresholds Thresholds::parse(std::string_view yaml_text, const std::string& source_name) {
    const YamlFields fields(source_name);
    const RuleParser parser(fields);
    const YAML::Node root = load_yaml(yaml_text, source_name);
    if (!root.IsMap()) {
        if (root.IsNull()) throw InputError(fmt::format("{}:1: empty thresholds file (expected 'metrics:')", source_name));
        fields.reject(root, "expected a map with the key 'metrics'");
    }

    Thresholds thresholds;
    thresholds.source_ = source_name;
    bool has_metrics = false;
    try {
        for (const auto& section : root) {
            const std::string key = fields.key(section.first, "top level");
            if (is_settings_section(key)) {
                parse_settings_section(fields, key, section.second, thresholds.settings_);
                continue;
            }
            if (key == "calibrated") {
                if (!section.second.IsScalar() || section.second.Scalar().empty())
                    fields.reject(section.second, "calibrated: expected the path of a calibration file "
                                                  "(shakedown-analyze calibrate writes one)");
                thresholds.calibration_file_ = section.second.Scalar();
                continue;
            }
            if (key != "metrics")
                fields.reject(section.first, fmt::format("unknown key '{}' (expected {})", key, top_level_keys));
            has_metrics = true;
            const YAML::Node& metrics = section.second;
            if (metrics.IsNull()) continue;
            if (!metrics.IsMap()) fields.reject(metrics, "metrics: expected a map of metric name -> rule");
            for (const auto& item : metrics) {
                if (!item.first.IsScalar() || item.first.Scalar().empty())
                    fields.reject(item.first, "metrics: a metric name must be a non-empty string");
                // A key given twice is refused by load_yaml_document, before this.
                const std::string name = item.first.Scalar();
                thresholds.entries_.push_back({name, is_glob_pattern(name), parser.rule(item.second, name)});
            }
        }
    } catch (const YAML::Exception& error) {  // a conversion yaml-cpp refuses (never expected; never a crash)
        throw InputError(fmt::format("{}: unreadable thresholds: {}", source_name, error.what()));
    }
    if (!has_metrics) fields.reject(root, "missing the key 'metrics'");
    thresholds.index_exact_keys();
    return thresholds;
}

// Linear scans here made a 200,000-rule file take 167 s to read and merge (every rule against
// every other); the index keeps parse, merge and lookup linear in the rules.
void Thresholds::index_exact_keys() {
    exact_.clear();
    exact_.reserve(entries_.size());
    for (std::size_t i = 0; i < entries_.size(); ++i)
        if (!entries_[i].is_pattern) exact_.emplace(entries_[i].key, i);
}

Thresholds Thresholds::built_in() {
    Thresholds thresholds = parse(default_thresholds_yaml(), "default.yaml (built in)");
    thresholds.calibration_ = CalibratedReferences::built_in();
    return thresholds;
}

Thresholds Thresholds::from_file(const std::filesystem::path& path) {
    Thresholds thresholds = parse(read_input_file(path, input_limits::max_text_file_bytes,
                                                  fmt::format("{}: cannot read the thresholds file: ", path.string())),
                                  path.string());
    // A relative calibration path is the thresholds file's neighbour, wherever the analyzer runs.
    if (thresholds.calibration_file_ && std::filesystem::path(*thresholds.calibration_file_).is_relative())
        thresholds.calibration_file_ = (path.parent_path() / *thresholds.calibration_file_).string();
    return thresholds;
}

Thresholds Thresholds::with_calibration_over(const CalibratedReferences& site) const {
    Thresholds merged = *this;
    merged.calibration_ = site.merged_over(calibration_);
    return merged;
}

Thresholds Thresholds::overridden_by(const Thresholds& overrides) const {
    Thresholds merged = *this;
    merged.source_ = source_ + " + " + overrides.source_;
    merged.settings_.merge(overrides.settings_);
    std::unordered_map<std::string_view, std::size_t> position;  // key -> index in this file's entries
    for (std::size_t i = 0; i < entries_.size(); ++i) position.emplace(entries_[i].key, i);
    std::vector<Entry> new_patterns;  // in the user's file order, in front: the user's patterns win
    std::vector<Entry> new_names;
    for (const Entry& override_entry : overrides.entries_) {
        if (const auto found = position.find(override_entry.key); found != position.end())
            merged.entries_[found->second] = override_entry;
        else if (override_entry.is_pattern) new_patterns.push_back(override_entry);
        else new_names.push_back(override_entry);
    }
    std::vector<Entry> entries = std::move(new_patterns);
    entries.reserve(entries.size() + merged.entries_.size() + new_names.size());
    std::move(merged.entries_.begin(), merged.entries_.end(), std::back_inserter(entries));
    std::move(new_names.begin(), new_names.end(), std::back_inserter(entries));
    merged.entries_ = std::move(entries);
    merged.index_exact_keys();
    return merged;
}

void Thresholds::require_declared(const std::vector<std::string>& declared_metrics) const {
    const std::unordered_set<std::string_view> declared(declared_metrics.begin(), declared_metrics.end());
    for (const Entry& entry : entries_) {
        const auto matches = [&](const std::string& name) { return fnmatch(entry.key.c_str(), name.c_str(), 0) == 0; };
        if (entry.is_pattern ? std::any_of(declared_metrics.begin(), declared_metrics.end(), matches)
                             : declared.contains(entry.key))
            continue;
        throw InputError(fmt::format("{}: '{}' matches no metric any test declares (nearest: {})", entry.rule.origin,
                                     entry.key, fmt::join(nearest_names(entry.key, declared_metrics, 3), ", ")));
    }
}

const MetricRule* Thresholds::rule_for(std::string_view metric_name) const {
    const std::string name(metric_name);
    if (const auto found = exact_.find(name); found != exact_.end()) return &entries_[found->second].rule;
    for (const Entry& entry : entries_)
        if (entry.is_pattern && fnmatch(entry.key.c_str(), name.c_str(), 0) == 0) return &entry.rule;
    return nullptr;
}

}  // namespace shakedown::analysis
