// The first rules: each test's own status (failed, errored), a listed test with no result on a
// rank that finished, and every metric against its thresholds (absolute bounds and usable /
// nominal bands; a NaN or infinite figure always fails).
#pragma once

#include <string_view>

#include "analysis/load/observations.hpp"
#include "analysis/rules/model/finding.hpp"
#include "analysis/rules/model/judged_metrics.hpp"
#include "analysis/rules/settings/calibration.hpp"
#include "analysis/rules/settings/thresholds.hpp"

#include <vector>

namespace shakedown::analysis {

struct MetricJudgment {
    Level level = Level::pass;
    std::string reason;               // empty on pass
    std::optional<double> reference;  // the calibrated healthy figure, when one was used
    std::optional<Cause> cause;       // set when it is not the hardware's (a nominal not credible)
    ReasonCode code = ReasonCode::unclassified;
    std::optional<double> bound;  // the band's edge in the metric's unit (Finding::bound; on a pass the edge met)
    bool judged = false;          // a check compared the figure: a pass means something (judged_metrics.hpp)
};

// One metric against its rule (nullptr: no rule, only a non-finite value is judged). With a
// calibrated reference for the rank's part, a rule's fraction_of_nominal (or `calibrated`) check
// is made against what healthy hardware of that part gives instead (`bands` of that figure), and
// says so; without one, `calibrated` alone judges nothing. `gpu_without_calibration`: the GPU's name
// when the figure was measured on a GPU that no calibrated figure matches: its generic band is
// the rule's gpu_fraction_of_nominal where it has one, and the reason says the band is generic.
MetricJudgment judge_metric(const Metric& metric, const MetricRule* rule, const CalibratedReference* calibrated = nullptr,
                            const CalibrationBands& bands = {}, std::string_view gpu_without_calibration = {});

// FAIL per test that failed or ended with an error, with the test's reason and recorded cause.
std::vector<Finding> test_status_findings(const Observations& observations);

// FAIL per (rank, test) run.json lists that a rank which finished recorded no result of (it
// neither ran nor waived itself). Unfinished ranks are incomplete instead.
std::vector<Finding> missing_result_findings(const Observations& observations);

// WARN/FAIL per metric outside its thresholds; every figure a check compared goes into `judged`.
std::vector<Finding> threshold_findings(const Observations& observations, const Thresholds& thresholds,
                                        JudgedMetrics* judged = nullptr);

}  // namespace shakedown::analysis
