// Explains a WARN/FAIL with what the hardware was doing in the same time window: the test's
// start/end on the finding's rank, the node leader's telemetry of the rank's GPU (run.json
// "gpu"), or of the host for ranks without one. Says what coincided:
//   "GPU2 power-capped 83 % of the dgemm_fp64 window, SM clock median 1410 of 1980 MHz"
// and for a CPU DGEMM whether the BLAS core OpenBLAS chose matches the CPU's instruction set.
#pragma once

#include "analysis/analysis_settings.hpp"
#include "analysis/judgement.hpp"
#include "analysis/run_details.hpp"

#include <nlohmann/json.hpp>

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

// "OpenBLAS uses its Prescott kernels (SSE3) on a CPU with AVX-512 (avx512f) ..." or nullopt
// when the core fits the CPU (or nothing is known).
std::optional<std::string> blas_core_mismatch(const nlohmann::json& inventory);

// Fills finding.explanation for every WARN/FAIL that has a test window, loading node details as
// needed; at most `max_nodes` nodes are read (the rest keep no explanation). Returns how many
// findings were explained.
int explain_findings(Judgement& judgement, RunDetails& details, const AnalysisSettings& settings,
                     std::size_t max_nodes = 256);

}  // namespace shakedown::analysis
