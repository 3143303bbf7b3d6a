// Explains a WARN/FAIL with what the hardware was doing in the same time window: the test's
// start/end on the finding's rank, the node leader's telemetry of the rank's GPU (the table whose
// "uuid" attribute is the rank's GPU UUID from run.json, whatever each rank's CUDA visibility),
// or of the host for ranks without one. Says what coincided:
//   "GPU2 power-capped 83 % of the dgemm_fp64 window, SM clock median 1410 of 1980 MHz"
// and for a CPU DGEMM whether the BLAS core OpenBLAS chose matches the CPU's instruction set.
#pragma once

#include "analysis/load/observations.hpp"
#include "analysis/load/run_details.hpp"
#include "analysis/rules/model/finding.hpp"
#include "analysis/rules/settings/analysis_settings.hpp"

#include <nlohmann/json.hpp>

#include <map>
#include <optional>
#include <string>

namespace shakedown::analysis {

struct WindowExplanation {
    std::string text;        // one line; "" when there was nothing to look at
    bool coincided = false;  // something abnormal was found (else the text says the telemetry looked normal)
    std::string device;      // "gpu2", "host"
    double start_utc = 0.0;
    double end_utc = 0.0;
};

// `test` is the finding's test result on its rank (its window).
WindowExplanation explain_window(const Finding& finding, const TestResult& test, const NodeDetails& node,
                                 const AnalysisSettings& settings);

// The node's telemetry table of a GPU: the one whose "uuid" attribute is `uuid`, else (a run that
// recorded no UUID) "gpu<ordinal>"; nothing when the node has no such table.
std::optional<std::string> gpu_telemetry_table(const NodeDetails& node, const std::string& uuid, std::optional<int> ordinal);
// The same over a leader's tables and their attributes.
std::optional<std::string> gpu_telemetry_table(const std::map<std::string, SampleTable>& telemetry,
                                               const std::map<std::string, std::map<std::string, std::string>>& attributes,
                                               const std::string& uuid, std::optional<int> ordinal);

// The inventory's maximum SM clock of the finding's GPU (by UUID, else by ordinal).
std::optional<double> gpu_max_sm_clock(const nlohmann::json& inventory, const Finding& finding);

// Fills finding.explanation for every WARN/FAIL that has a test window, loading node details as
// needed; at most `max_nodes` nodes are read (the rest keep no explanation). Returns how many
// findings were explained.
int explain_findings(std::vector<Finding>& findings, const Observations& observations, RunDetails& details,
                     const AnalysisSettings& settings, std::size_t max_nodes = 256);

}  // namespace shakedown::analysis
