// The tidy rows in the OpenMetrics text format, for node_exporter's textfile collector: three
// gauge families (the value, the nominal where there is one, the level as 0 pass / 1 warn /
// 2 fail) whose labels are the rows' identity columns; no timestamps (the collector refuses
// them); label values escaped as the format says (\\, \", \n); `# EOF` at the end.
#pragma once

#include "analysis/export/tidy_rows.hpp"

#include <string>
#include <vector>

namespace shakedown::analysis {

// The metric families' names: what dashboards and alerts query, declared once.
inline constexpr const char* openmetrics_value_family = "shakedown_metric_value";
inline constexpr const char* openmetrics_nominal_family = "shakedown_metric_nominal";
inline constexpr const char* openmetrics_level_family = "shakedown_metric_level";

std::string tidy_openmetrics(const std::vector<TidyRow>& rows);

}  // namespace shakedown::analysis
