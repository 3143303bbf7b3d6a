// Weak scaling, judged against what the same run predicts and what healthy parts give, for every
// test that declares its scaling figures (core/scaling_declaration.hpp: train_step's in
// kernels/train/train_step_names.hpp, stencil3d's and cg_fp64's in kernels/stencil/stencil3d_names.hpp
// and kernels/cg/cg_fp64_names.hpp name every figure read here). A GPU or host rank that runs its step alone (T1) far slower
// than the median rank is named: every rank waits for it each step (the all-reduce, the halo exchange). A node whose network
// link, measured by all-reduces with other nodes' leaders, is far below the fabric's median is named. A job or node
// efficiency below its prediction that neither explains is a WARN saying so. An efficiency below 1 that the prediction also
// gives (PCIe between GPUs, a slow fabric everywhere) is the machine as built: not a finding, the report shows it
// (report/workload_section).
#pragma once

#include "analysis/load/observations.hpp"
#include "analysis/rules/model/finding.hpp"
#include "analysis/rules/settings/analysis_settings.hpp"

#include <vector>

namespace shakedown::analysis {

std::vector<Finding> scaling_findings(const Observations& observations, const AnalysisSettings& settings);

}  // namespace shakedown::analysis
