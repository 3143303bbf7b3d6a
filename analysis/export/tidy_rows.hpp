// The tidy table of a run's measured values: one row per (rank, test, metric) with who measured
// it and how the analysis judged it. What `shakedown-analyze export` writes as CSV or OpenMetrics
// (docs/analyzer.md, "export"); the column names are declared here once.
#pragma once

#include "analysis/load/observations.hpp"
#include "analysis/rules/finding.hpp"
#include "analysis/rules/verdicts.hpp"

#include <array>
#include <optional>
#include <string>
#include <vector>

namespace shakedown::analysis {

inline constexpr std::array<const char*, 10> tidy_columns{"run",    "node", "rank",  "gpu_uuid", "test",
                                                          "metric", "unit", "value", "nominal",  "level"};

struct TidyRow {
    std::string run;       // run.json's run id
    std::string node;
    int rank = 0;
    std::string gpu_uuid;  // "" for a host rank or a run that recorded none
    std::string test;
    std::string metric;
    std::string unit;
    double value = 0.0;    // may be NaN or infinite: what the measurement gave
    std::optional<double> nominal;
    Level level = Level::pass;  // the worst WARN/FAIL finding about this rank's metric, else pass
};

// Every metric of every rank, in rank then test order, with the judgement's levels.
std::vector<TidyRow> tidy_rows(const Observations& observations, const Judgement& judgement);

}  // namespace shakedown::analysis
