// The slow rank of the collectives: mpi_coll records on every rank its time over the median
// rank's (mpi_coll.rank_time_ratio) and on rank 0 which rank was slowest. A rank at or above
// `collectives.slow_rank_ratio` is named with its node and GPU (WARN; FAIL at fail_ratio).
#pragma once

#include "analysis/analysis_settings.hpp"
#include "analysis/judgement.hpp"
#include "analysis/run_data.hpp"

#include <vector>

namespace shakedown::analysis {

std::vector<Finding> slow_rank_findings(const LoadedRun& run, const AnalysisSettings& settings);

// "rank 5 (node0001, GPU 1)": how reports name a rank.
std::string rank_label(const Finding& finding);

}  // namespace shakedown::analysis
