// A hung or dead rank, named: when the watchdog ended the job, every live rank's watchdog said
// where it stood (test, phase, the ranks it waited for) before the job ended. The rank that said
// nothing (stopped, dead, its trace missing), above all one the others were waiting for, is
// the one that stopped progressing: its node fails and drains, the waiters' nodes are only
// incomplete. When every rank spoke, the culprit is a rank the others waited for that itself
// waited for no one (stuck in its own work, such as a driver call).
#pragma once

#include "analysis/load/observations.hpp"
#include "analysis/rules/model/finding.hpp"

#include <vector>

namespace shakedown::analysis {

std::vector<Finding> stall_findings(const Observations& observations);

}  // namespace shakedown::analysis
