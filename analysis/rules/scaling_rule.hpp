// train_step's scaling, judged against what the same run predicts and what healthy parts give
// (kernels/train/train_step_names.hpp names every figure read here). A GPU or host rank that runs
// the step alone (T1) far slower than the median rank is named: in data parallelism every rank
// waits for it each step. A node whose network link, measured by all-reduces with other nodes'
// leaders, is far below the fabric's median is named. A job or node efficiency below its prediction
// that neither explains is a WARN saying so. An efficiency below 1 that the prediction also gives
// (PCIe between GPUs, a slow fabric everywhere) is the machine as built: not a finding, the report
// shows it (report/workload_section).
#pragma once

#include "analysis/load/observations.hpp"
#include "analysis/rules/analysis_settings.hpp"
#include "analysis/rules/finding.hpp"

#include <vector>

namespace shakedown::analysis {

std::vector<Finding> scaling_findings(const Observations& observations, const AnalysisSettings& settings);

}  // namespace shakedown::analysis
