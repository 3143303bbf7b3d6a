// A node Slurm marked down or failed while the job ran (slurm_nodes.txt, written by the job
// script after the run step) is named in the verdict: its ranks left traces missing or
// unfinished, and Slurm says why. A FAIL with cause hardware on that node. A node only drained
// (an administrator's or an earlier verdict's choice) is not evidence about its hardware.
#pragma once

#include "analysis/load/observations.hpp"
#include "analysis/rules/model/finding.hpp"

#include <string_view>
#include <vector>

namespace shakedown::analysis {

// Down, failed or not responding ('*'), in sinfo's %T spelling ("down*", "idle+fail", ...).
bool scheduler_lost_node(std::string_view state);

std::vector<Finding> scheduler_findings(const Observations& observations);

}  // namespace shakedown::analysis
