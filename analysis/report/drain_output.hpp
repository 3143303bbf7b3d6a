// drain.txt through the Slurm helper's drain list (slurm/drain_list.hpp): one scontrol line per
// FAIL node, reason = its worst finding. Written always; executed only on the explicit
// --drain-apply flag.
#pragma once

#include "analysis/rules/verdicts.hpp"
#include "slurm/drain_list.hpp"

#include <string>
#include <vector>

namespace shakedown::analysis {

std::vector<slurm::DrainRequest> drain_requests(const Judgement& judgement);

}  // namespace shakedown::analysis
