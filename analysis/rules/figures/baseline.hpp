// --baseline OLD_RUN: every figure compared with an earlier run's as rules/figures/figure_comparison
// compares runs (a GPU's figure by the GPU's UUID, a host figure by node and local rank, a
// job-wide figure once for the run, an identifier never); a change for the worse beyond the
// tolerance is a regression finding (WARN by default, `baseline: {level: fail}` makes it a FAIL).
// A job-wide figure's regression is the run's: one slow node in a collective lowers every rank's
// figure, and judging those node by node turned healthy nodes WARN (556 "regressions" from one
// slow node).
#pragma once

#include "analysis/load/observations.hpp"
#include "analysis/rules/figures/figure_comparison.hpp"
#include "analysis/rules/model/finding.hpp"
#include "analysis/rules/settings/analysis_settings.hpp"

#include <filesystem>
#include <string>
#include <vector>

namespace shakedown::analysis {

// One job-wide metric worse than the baseline's beyond the tolerance: the run's, no node's. It
// turns no node WARN; the reports list it once in their baseline section.
struct RunRegression {
    std::string test;
    std::string metric;
    std::string unit;
    Better better = Better::higher;
    double value = 0.0;     // the job's median over the ranks that recorded it
    double baseline = 0.0;  // the baseline run's median
    double worse_by = 0.0;  // fraction of the baseline's value, in the metric's worse direction
    double bound = 0.0;     // the baseline's value moved by the tolerance: the edge the value crossed
    int ranks = 0;          // ranks of this run that recorded it
    Level level = Level::warn;
    std::string reason;  // one line with the numbers
};

struct BaselineComparison {
    std::string baseline_run_id;
    std::filesystem::path baseline_dir;
    double tolerance = 0.0;
    int compared = 0;               // rank metric values present in both runs
    int regressions = 0;            // per-rank regressions (= findings)
    int improvements = 0;           // better by more than the tolerance (reported as a count only), either scope
    int missing = 0;                // values in the baseline that this run does not have (job-wide: one per metric)
    int job_wide_compared = 0;      // job-wide metrics compared once each
    std::vector<Finding> findings;  // per rank: metrics of the rank's own
    std::vector<RunRegression> run_regressions;  // job-wide: at most one per metric, in the run's order
};

BaselineComparison compare_with_baseline(const Observations& run, const Observations& baseline,
                                         const AnalysisSettings& settings);

}  // namespace shakedown::analysis
