// drain.txt through the Slurm helper's drain list (slurm/drain_list.hpp): one scontrol line per
// node that FAILs for a hardware reason about itself (a configuration or software finding is
// fixed, not drained; so is a slow link, whose cable or port is replaced: is_link_fault), reason =
// its worst such finding. A FAIL resting on a figure drains only once confirmed
// (Finding::drains, rules/model/confirmation.hpp). Written always; executed only on the explicit
// --drain-apply flag.
#pragma once

#include "analysis/rules/model/verdicts.hpp"
#include "slurm/drain_list.hpp"

#include <string>
#include <vector>

namespace shakedown::analysis {

struct DrainList {
    std::vector<slurm::DrainRequest> requests;
    std::vector<std::string> refused;  // failing nodes whose names Slurm would not accept: never in a command
};

DrainList drain_list(const Judgement& judgement);

}  // namespace shakedown::analysis
