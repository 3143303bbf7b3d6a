#include "analysis/rules/settings/calibration.hpp"

#include "analysis/rules/settings/calibrated_references_data.hpp"
#include "analysis/rules/settings/yaml_fields.hpp"
#include "core/errors.hpp"
#include "core/input_file.hpp"
#include "core/input_limits.hpp"
#include "core/printable_text.hpp"
#include "core/yaml_document.hpp"
#include "placement/placement_names.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <fnmatch.h>

#include <algorithm>
#include <optional>

namespace shakedown::analysis {
namespace {

std::string text_of(const YamlFields& fields, const YAML::Node& node, std::string_view what) {
    if (!node.IsScalar()) fields.reject(node, fmt::format("{}: expected text, got {}", what, YamlFields::shown(node)));
    return node.Scalar();
}

// An entry's own bands, made on its first band key from the defaults (the file's bands may come later).
CalibrationBands& bands(CalibratedReference& reference) {
    if (!reference.bands) reference.bands = CalibrationBands{};
    return *reference.bands;
}

CalibratedReference reference_of(const YamlFields& fields, const YAML::Node& node) {
    if (!node.IsMap()) fields.reject(node, "references: each entry must be a map");
    CalibratedReference reference;
    reference.origin = fmt::format("{}:{}", fields.source(), node.Mark().line + 1);
    for (const auto& item : node) {
        const std::string key = fields.key(item.first, "references");
        if (key == "part") reference.part = text_of(fields, item.second, key);
        else if (key == "metric") reference.metric = text_of(fields, item.second, key);
        else if (key == "healthy_fraction") reference.healthy_fraction = fields.positive(item.second, key);
        else if (key == "healthy_value") reference.healthy_value = fields.positive(item.second, key);
        else if (key == "ranks") reference.ranks = static_cast<int>(fields.positive(item.second, key));
        else if (key == "measured") reference.measured = text_of(fields, item.second, key);
        else if (key == "conditions") reference.conditions = text_of(fields, item.second, key);
        else if (key == "source") reference.source = text_of(fields, item.second, key);
        else if (key == "warn_below") bands(reference).warn_below = fields.positive(item.second, key);
        else if (key == "fail_below") bands(reference).fail_below = fields.positive(item.second, key);
        else if (key == "when") {
            if (!item.second.IsMap()) fields.reject(item.second, "when: expected a map of test parameter -> value");
            for (const auto& condition : item.second)
                reference.when[fields.key(condition.first, "when")] = text_of(fields, condition.second, "when");
        } else {
            fields.reject(item.first, fmt::format("references: unknown key '{}' (expected part, metric, when, ranks, "
                                                  "healthy_fraction, healthy_value, warn_below, fail_below, measured, "
                                                  "conditions, source)",
                                                  key));
        }
    }
    if (reference.part.empty() || reference.metric.empty())
        fields.reject(node, "references: an entry needs part and metric");
    if (reference.healthy_fraction.has_value() == reference.healthy_value.has_value())
        fields.reject(node, "references: an entry needs exactly one of healthy_fraction and healthy_value");
    if (reference.source.empty()) fields.reject(node, "references: an entry needs its source (where it was measured)");
    if (reference.bands && reference.bands->fail_below > reference.bands->warn_below)
        fields.reject(node, "references: fail_below is above warn_below");
    return reference;
}

}  // namespace

CalibratedReferences CalibratedReferences::parse(std::string_view yaml_text, const std::string& source_name) {
    const YamlFields fields(source_name);
    YAML::Node root;
    try {
        root = load_yaml_document(std::string(yaml_text), source_name);
    } catch (const YAML::Exception& error) {
        throw InputError(fmt::format("{}: malformed YAML: {}", source_name, error.what()));
    }
    if (!root.IsMap()) throw InputError(fmt::format("{}:1: expected a map with 'references'", source_name));
    CalibratedReferences calibrated;
    for (const auto& section : root) {
        const std::string key = fields.key(section.first, "top level");
        if (key == "bands") {
            if (!section.second.IsMap()) fields.reject(section.second, "bands: expected {warn_below: W, fail_below: F}");
            for (const auto& item : section.second) {
                const std::string band = fields.key(item.first, "bands");
                if (band == "warn_below") calibrated.bands_.warn_below = fields.positive(item.second, "bands.warn_below");
                else if (band == "fail_below")
                    calibrated.bands_.fail_below = fields.positive(item.second, "bands.fail_below");
                else
                    fields.reject(item.first,
                                  fmt::format("bands: unknown key '{}' (expected warn_below, fail_below)", band));
            }
        } else if (key == "references") {
            if (!section.second.IsSequence()) fields.reject(section.second, "references: expected a list");
            for (const auto& entry : section.second) {
                calibrated.references_.push_back(reference_of(fields, entry));
                calibrated.lowered_parts_.push_back(ascii_lower(calibrated.references_.back().part));
                calibrated.metric_is_pattern_.push_back(calibrated.references_.back().metric.find_first_of("*?[") !=
                                                        std::string::npos);
            }
        } else {
            fields.reject(section.first, fmt::format("unknown key '{}' (expected bands, references)", key));
        }
    }
    if (calibrated.bands_.fail_below > calibrated.bands_.warn_below)
        throw InputError(fmt::format("{}: bands.fail_below is above warn_below", source_name));
    return calibrated;
}

CalibratedReferences CalibratedReferences::built_in() {
    return parse(calibrated_references_yaml(), "calibrated.yaml (built in)");
}

CalibratedReferences CalibratedReferences::from_file(const std::string& path) {
    return parse(read_input_file(path, input_limits::max_text_file_bytes,
                                 fmt::format("{}: cannot read the calibration file: ", path)),
                 path);
}

CalibratedReferences CalibratedReferences::merged_over(const CalibratedReferences& base) const {
    CalibratedReferences merged = *this;
    // An entry without bands of its own keeps its own file's: the site's file bands for its
    // entries, the built-in bands for the built-in ones.
    for (CalibratedReference& reference : merged.references_)
        if (!reference.bands) reference.bands = bands_;
    for (std::size_t i = 0; i < base.references_.size(); ++i) {
        CalibratedReference reference = base.references_[i];
        if (!reference.bands) reference.bands = base.bands_;
        merged.references_.push_back(std::move(reference));
        merged.lowered_parts_.push_back(base.lowered_parts_[i]);
        merged.metric_is_pattern_.push_back(base.metric_is_pattern_[i]);
    }
    merged.bands_ = base.bands_;
    return merged;
}

const CalibratedReference* CalibratedReferences::find(const std::string& metric, const std::string& gpu_name,
                                                      const std::map<std::string, std::string>& parameters,
                                                      int world_size) const {
    if (gpu_name.empty()) return nullptr;
    // The references are a GPU part's: a result the test recorded as run on the host of a GPU
    // node (device: host) is the CPU's, whatever GPU the rank was bound to (an H200 node's host
    // DGEMM was once judged "0.16 of a healthy H200").
    if (const auto device = parameters.find(placement::names::device);
        device != parameters.end() && device->second != placement::names::ran_on_gpu)
        return nullptr;
    std::optional<std::string> name;  // lowered only for a metric some reference names
    for (std::size_t i = 0; i < references_.size(); ++i) {
        const CalibratedReference& reference = references_[i];
        const bool names_metric = metric_is_pattern_[i] ? fnmatch(reference.metric.c_str(), metric.c_str(), 0) == 0
                                                        : reference.metric == metric;
        if (!names_metric) continue;
        if (!name) name = ascii_lower(gpu_name);
        if (name->find(lowered_parts_[i]) == std::string::npos) continue;
        if (reference.ranks && *reference.ranks != world_size) continue;
        const bool conditions_hold = std::all_of(reference.when.begin(), reference.when.end(), [&](const auto& condition) {
            const auto found = parameters.find(condition.first);
            return found != parameters.end() && found->second == condition.second;
        });
        if (conditions_hold) return &reference;
    }
    return nullptr;
}

}  // namespace shakedown::analysis
