// Thresholds: per metric WARN and FAIL levels, from the built-in default.yaml and an optional
// user file that overrides it metric by metric, plus the analysis settings (fleet, baseline,
// telemetry, links, collectives, price). A bad file is an InputError naming file:line.
#pragma once

#include "analysis/rules/settings/analysis_settings.hpp"
#include "analysis/rules/settings/calibration.hpp"

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace shakedown::analysis {

// usable / nominal below `warn` is a WARN, below `fail` a FAIL (warn >= fail).
struct FractionBand {
    std::optional<double> warn;
    std::optional<double> fail;
};

// The fleet outlier rule: a unit (a GPU's rank, or a node without GPUs) whose value lies more
// than k robust standard deviations (1.4826 x MAD) on the bad side of the fleet median AND at
// least `warn_deviation` (`fail_deviation`) of the median away is a WARN (FAIL). The second
// condition keeps a tight fleet (MAD near 0) from flagging noise.
struct FleetBand {
    double k = 4.0;
    double warn_deviation = 0.10;
    std::optional<double> fail_deviation;
};

struct MetricRule {
    std::optional<double> fail_below;
    std::optional<double> warn_below;
    std::optional<double> fail_above;
    std::optional<double> warn_above;
    std::optional<FractionBand> fraction_of_nominal;
    // The generic band for a figure measured on a GPU whose part has no calibrated figure, where
    // it differs from fraction_of_nominal's (which then judges host figures): a power-capped
    // GPU's DGEMM on uniform data sits lower than a CPU BLAS (docs/analyzer.md).
    std::optional<FractionBand> gpu_fraction_of_nominal;
    // `calibrated: true`: judged against a part's calibrated healthy figure (calibrated.yaml)
    // where one matches the rank, and by no generic band elsewhere: for figures whose healthy
    // value depends on the part and the conditions so much that no fraction of nominal fits all
    // (an LU rate depends on n and the algorithm). fraction_of_nominal implies it.
    bool calibrated = false;
    std::optional<FleetBand> fleet_outlier;
    // The nominal is a ceiling (a peak): a measured figure above it means the nominal is wrong,
    // a WARN to fix ("nominal not credible"), never a pass by a wide margin.
    // value / nominal above this ratio WARNs; the margin over 1 absorbs timing noise and ranks
    // time-sharing cores unevenly.
    std::optional<double> above_nominal_warns_at;
    std::string origin;  // "default.yaml:17": where the rule was written, for the report

    bool judges_anything() const;  // any absolute or nominal check (the fleet rule aside)
};

class Thresholds {
public:
    // The rules in `yaml_text`; `source_name` names it in errors ("file.yaml:12: ...").
    static Thresholds parse(std::string_view yaml_text, const std::string& source_name);
    static Thresholds built_in();
    static Thresholds from_file(const std::filesystem::path& path);

    // A copy where every metric named in `overrides` takes the override's rule.
    Thresholds overridden_by(const Thresholds& overrides) const;

    // The rule for a metric: the exact name first, else the first matching glob pattern.
    const MetricRule* rule_for(std::string_view metric_name) const;

    // Every key must name (or, as a pattern, match) at least one of `declared_metrics`, the
    // metrics the tests declare: a misspelt key would judge nothing, silently. Throws InputError
    // "file.yaml:12: 'stream.tirad_gbs' matches no metric any test declares (nearest: ...)".
    void require_declared(const std::vector<std::string>& declared_metrics) const;

    // The built-in calibrated references (empty for a parsed file; overrides keep the base's),
    // with a site's calibration merged over them by with_calibration_over.
    const CalibratedReferences& calibration() const { return calibration_; }
    // A copy whose calibrated references are `site`'s entries first, then these.
    Thresholds with_calibration_over(const CalibratedReferences& site) const;
    // `calibrated: FILE` in a thresholds file: a site's calibration (the path as resolved against
    // the thresholds file's folder), to merge over the built-in one.
    const std::optional<std::string>& calibration_file() const { return calibration_file_; }

    const AnalysisSettings& settings() const { return settings_; }
    AnalysisSettings& settings() { return settings_; }  // command-line values (price) go in here
    const std::string& source() const { return source_; }
    std::size_t size() const { return entries_.size(); }

private:
    struct Entry {
        std::string key;  // metric name or glob pattern
        bool is_pattern = false;
        MetricRule rule;  // rule.origin: where the key was written
    };
    void index_exact_keys();  // after entries_ changes

    std::vector<Entry> entries_;
    std::unordered_map<std::string, std::size_t> exact_;  // a metric name's entry (patterns are scanned)
    AnalysisSettings settings_;
    CalibratedReferences calibration_;
    std::optional<std::string> calibration_file_;
    std::string source_;
};

}  // namespace shakedown::analysis
