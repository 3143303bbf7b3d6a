// NVMe drives' own health, from the node leader's "nvme_health" table (telemetry/
// nvme_health_columns.hpp: each controller's SMART / Health Information log, read during the run).
// Findings are filed under the pseudo-test "nvme_health", cause hardware, evidence fault (the
// drive's own record: nothing to measure again), the column as metric, naming the controller,
// model and serial:
//   nvme_critical_warning  a critical warning bit set in any reading, each bit named       FAIL
//   nvme_media_errors      media and data integrity errors in the drive's lifetime count    FAIL
//   nvme_wear              percentage used at or above gpu_health.nvme_wear_warn_percent
//                          (default 80; the drive's own estimate of its rated endurance)   WARN
// A controller whose log could not be read has NaN columns: no finding (its trace says why).
#pragma once

#include "analysis/load/observations.hpp"
#include "analysis/rules/model/finding.hpp"
#include "analysis/rules/settings/analysis_settings.hpp"

#include <map>
#include <string>
#include <vector>

namespace shakedown::analysis {

inline constexpr const char* nvme_health_check = "nvme_health";

std::vector<Finding> nvme_health_findings(const RankIdentity& leader, const SampleTable& table,
                                          const std::map<std::string, std::string>& facts, const AnalysisSettings& settings);

}  // namespace shakedown::analysis
