// Calibrated references: what healthy hardware of a part really gives for a metric (a fraction of
// its nominal, or a value), measured under stated conditions (analysis/thresholds/calibrated.yaml,
// compiled in). A healthy H200's DGEMM with uniform data is 0.84 of its datasheet figure: judged
// against the datasheet it would WARN; judged against this it passes, and a real shortfall
// still shows.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace shakedown::analysis {

struct CalibrationBands {
    double warn_below = 0.90;  // of the healthy figure
    double fail_below = 0.75;
};

struct CalibratedReference {
    std::string part;                         // matched against the GPU's name, case-insensitive substring ("H200")
    std::string metric;                       // a name or glob pattern
    std::map<std::string, std::string> when;  // test parameters that must match ("fill": "uniform")
    std::optional<int> ranks;                 // the run's rank count, for job-wide figures
    std::optional<double> healthy_fraction;   // of the metric's nominal
    std::optional<double> healthy_value;      // in the metric's unit, for figures without a nominal
    std::string measured;
    std::string conditions;
    std::string source;
    std::string origin;  // "calibrated.yaml:24"
    // This entry's own bands (a site's calibration sets them from its runs' spread); none: the file's.
    std::optional<CalibrationBands> bands;
};

class CalibratedReferences {
public:
    // Throws InputError "source:line: problem" for a malformed file.
    static CalibratedReferences parse(std::string_view yaml_text, const std::string& source_name);
    static CalibratedReferences built_in();
    // A calibration file (`shakedown-analyze calibrate` writes one); InputError when unreadable or malformed.
    static CalibratedReferences from_file(const std::string& path);

    // This file's entries first (find() takes the first match, so they win), then `base`'s. Each
    // entry keeps its own file's bands.
    CalibratedReferences merged_over(const CalibratedReferences& base) const;

    // The first entry for `metric` on a GPU named `gpu_name` whose conditions hold; nothing for a
    // rank without a GPU name or a part no entry names.
    const CalibratedReference* find(const std::string& metric, const std::string& gpu_name,
                                    const std::map<std::string, std::string>& parameters, int world_size) const;

    const CalibrationBands& bands() const { return bands_; }
    // The bands `reference` is judged by: its own, else its file's (the built-in file's by default).
    const CalibrationBands& bands_of(const CalibratedReference& reference) const {
        return reference.bands ? *reference.bands : bands_;
    }
    const std::vector<CalibratedReference>& references() const { return references_; }

private:
    std::vector<CalibratedReference> references_;
    // references_[i].part in lower case, made once: find() runs for every metric row (737,280 at
    // 16,384 ranks), and lowering every part there again was a third of its 0.39 s of CPU.
    std::vector<std::string> lowered_parts_;
    // Whether references_[i].metric is a glob ("*_fp64.tflops"): the others are compared as
    // names, so a row fnmatches only the few patterns, not every reference (1.6 s at 81,920 ranks).
    std::vector<bool> metric_is_pattern_;
    CalibrationBands bands_;
};

}  // namespace shakedown::analysis
