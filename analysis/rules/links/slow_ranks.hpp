// The slow rank of the collectives: mpi_coll records on every rank its time over the other ranks'
// median (mpi_coll.rank_time_ratio) and on rank 0 which rank was slowest. A rank at or above
// `collectives.slow_rank_ratio` is named with its node and GPU (WARN; FAIL at fail_ratio).
#pragma once

#include "analysis/load/observations.hpp"
#include "analysis/rules/model/finding.hpp"
#include "analysis/rules/settings/analysis_settings.hpp"

#include <vector>

namespace shakedown::analysis {

std::vector<Finding> slow_rank_findings(const Observations& observations, const AnalysisSettings& settings);

// "rank 5 (node0001, GPU 1)": how reports name a rank.
std::string rank_label(const Finding& finding);

}  // namespace shakedown::analysis
