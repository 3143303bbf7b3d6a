// The tidy table of a run's measured values: one row per (rank, test, metric) with who measured
// it and how the analysis judged it. What `shakedown-analyze export` writes as CSV or OpenMetrics
// (docs/analyzer.md, "export"); the column names are declared here once.
#pragma once

#include "analysis/load/observations.hpp"
#include "analysis/rules/model/finding.hpp"
#include "analysis/rules/model/judged_metrics.hpp"
#include "analysis/rules/model/verdicts.hpp"

#include <array>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace shakedown::analysis {

inline constexpr std::array<const char*, 10> tidy_columns{"run",    "node", "rank",  "gpu_uuid", "test",
                                                          "metric", "unit", "value", "nominal",  "level"};

// The text members are views into the Observations (and the run they hold), which outlive the
// rows: 3.7 M rows at 81,920 ranks are built for every report, and a copy of five strings each
// was most of their cost.
struct TidyRow {
    std::string_view run;       // run.json's run id
    std::string_view node;
    int rank = 0;
    std::string_view gpu_uuid;  // "" for a host rank or a run that recorded none
    std::string_view test;
    std::string_view metric;
    std::string_view unit;
    double value = 0.0;    // may be NaN or infinite: what the measurement gave
    std::optional<double> nominal;
    Level level = Level::pass;  // the worst WARN/FAIL finding about this rank's metric, else pass
    // A rule compared the figure (a finding, or a check it passed: rules/model/judged_metrics.hpp); a
    // figure no rule compared is "not judged", whatever `level` says.
    bool judged = false;
    std::optional<double> bound;  // on a judged pass: the band's edge it met, in its unit
};

// The level column of a row: pass, warn, fail, or not_judged.
std::string_view level_text(const TidyRow& row);

// Every metric of every rank, in rank then test order, with the judgement's levels; valid while
// `observations` and `judgement` are.
std::vector<TidyRow> tidy_rows(const Observations& observations, const Judgement& judgement, const JudgedMetrics& judged);

// The same rows, one at a time, for a reader that keeps few of them (the report shows 20,000 of
// 3.7 M at 81,920 ranks and counts the rest: a vector of them all was 550 MB of fresh pages).
void for_each_tidy_row(const Observations& observations, const Judgement& judgement, const JudgedMetrics& judged,
                       const std::function<void(const TidyRow&)>& visit);

}  // namespace shakedown::analysis
