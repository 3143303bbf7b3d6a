// The whole-run check of RDMA port error counters: for every node and every port table its
// leader recorded ("mlx5_0_port1", written by telemetry/rdma_port_telemetry), the rise of each
// error counter ("error_<sysfs name>") from the first to the last reading of the run. A rise
// above the allowance (port_counters.allowed_increase, 0 by default) FAILs the node:
//   "mlx5_0 port 1: symbol_error +12, port_rcv_errors +3 during the run (08:01:02-08:04:40)"
// A counter that went backwards (cleared by someone, a driver reload, a wrap) is a WARN saying so,
// never a negative delta; rises on either side of the drop still count. A 16/8/4-bit PortCounters
// error counter at its ceiling is a WARN (errors beyond it cannot show). A port that was ACTIVE
// and changed state during the run FAILs the node ("left ACTIVE during the run: DOWN at ...").
#pragma once

#include "analysis/load/observations.hpp"
#include "analysis/rules/model/finding.hpp"
#include "analysis/rules/settings/analysis_settings.hpp"
#include "core/result.hpp"

#include <map>
#include <string>
#include <vector>

namespace shakedown::analysis {

// The pseudo-test the findings are filed under (JUnit test case, drain reason, summary.json).
inline constexpr const char* port_counter_check = "rdma_port_counters";

// Findings for one node from its leader's telemetry (`leader`: where the tables are).
std::vector<Finding> port_counter_findings(const RankIdentity& leader, const std::map<std::string, SampleTable>& telemetry,
                                           const AnalysisSettings& settings);

}  // namespace shakedown::analysis
