// Hidden faults: what no throughput figure shows, from each node leader's NVML health tables
// ("health_gpu<N>", telemetry/gpu_health_telemetry.hpp) and Xid events, judged over the whole
// run (first to last reading). Every finding is filed under the pseudo-test "gpu_health", cause
// hardware, evidence fault (a counter or an event drains at once), with the counter's name as
// its metric, the last reading as its value and the first as its reference, and the rule's name
// in the reason:
//   xid                     an Xid event: its level and action from rules/health/xid_catalogue.hpp;
//                           an Xid not in the catalogue WARNs naming it
//   remap_pending           a row remap pending (any reading)                      FAIL
//   remap_bank_none         row remapper banks without a spare row (any reading)   FAIL
//   remap_bank_low          row remapper banks with few spare rows (any reading)   WARN
//   remap_failure           a row remap failed (any reading)                       FAIL
//   retired_pages_pending   a page retirement pending (any reading)                FAIL
//   ecc_dbe_rise            volatile uncorrected (double-bit) ECC count rose       FAIL
//   remap_uncorrected_rise  rows remapped for uncorrected errors rose             FAIL
//   ecc_sbe_rise            volatile corrected (single-bit) ECC count rose         WARN
//   remap_corrected_rise    rows remapped for corrected errors rose               WARN
//   retired_pages_rise      retired pages rose                                     WARN
//   pcie_replay_rise        PCIe replay counter rose: WARN; above
//                           gpu_health.pcie_replay_fail_rise (default 1000)        FAIL
//   nvlink_down             fewer active NVLink links than expected: the node's
//                           profile class (gpu.nvlinks), else
//                           gpu_health.nvlink_expected_links, else the spec
//                           table's count for the part, else as many as NVML
//                           answers for; the missing link ids named               FAIL
//   nvlink_error_rise       NVLink CRC, replay or recovery counts rose             WARN
//   fabric_state            fabric registration not completed at the end         FAIL
//   fabric_status           fabric registration completed with an error status    FAIL
// and, from the node's "pcie_aer" table (telemetry/pcie_aer_telemetry.hpp), under "pcie_aer":
//   aer_fatal_rise          a device's or bridge's fatal AER count rose            FAIL
//   aer_nonfatal_rise       non-fatal AER count rose                               WARN
//   aer_correctable_rise    correctable AER count rose above
//                           gpu_health.aer_correctable_warn_rise (default 100)     WARN
// and, from the node's "nvme_health" table, the NVMe drives' own health logs under "nvme_health"
// (rules/health/nvme_health_rule.hpp).
// A counter that is NaN throughout (not available) gives no finding: the trace says why.
#pragma once

#include "analysis/load/observations.hpp"
#include "analysis/rules/model/finding.hpp"
#include "analysis/rules/settings/analysis_settings.hpp"
#include "core/result.hpp"
#include "profile/profile.hpp"

#include <map>
#include <string>
#include <vector>

namespace shakedown::analysis {

inline constexpr const char* gpu_health_check = "gpu_health";
inline constexpr const char* pcie_aer_check = "pcie_aer";
inline constexpr const char* pcie_aer_table_name = "pcie_aer";  // as telemetry/pcie_aer_telemetry.hpp names it

// Findings for one node from its leader's health tables, their attributes and the events.
std::vector<Finding> hidden_fault_findings(const Observations& observations, const NodeRow& node,
                                           const std::map<std::string, SampleTable>& telemetry,
                                           const std::map<std::string, std::map<std::string, std::string>>& attributes,
                                           const std::vector<Event>& events, const AnalysisSettings& settings,
                                           const profile::Profile* profile = nullptr);

}  // namespace shakedown::analysis
