// --baseline OLD_RUN: every metric of every rank compared with the same node, local rank and
// metric of an earlier run; a change for the worse beyond the tolerance is a regression
// finding (WARN by default, `baseline: {level: fail}` makes it a FAIL).
#pragma once

#include "analysis/load/observations.hpp"
#include "analysis/rules/analysis_settings.hpp"
#include "analysis/rules/finding.hpp"

#include <filesystem>
#include <string>
#include <vector>

namespace shakedown::analysis {

struct BaselineComparison {
    std::string baseline_run_id;
    std::filesystem::path baseline_dir;
    double tolerance = 0.0;
    int compared = 0;      // metric values present in both runs
    int regressions = 0;
    int improvements = 0;  // better by more than the tolerance (reported as a count only)
    int missing = 0;       // values in the baseline that this run does not have
    std::vector<Finding> findings;
};

BaselineComparison compare_with_baseline(const Observations& run, const Observations& baseline,
                                         const AnalysisSettings& settings);

}  // namespace shakedown::analysis
