// A rank whose whole process stood still inside a test for longer than watchdog.freeze_report_s
// (SIGSTOP, a paused VM, a node swapping) but shorter than its deadline: the driver recorded the
// seconds in the test's result (core/driver_result_names.hpp). Without this the test passes and
// only its duration shows it. One WARN per rank and test, naming the node and the time lost,
// cause hardware, nothing drained; a node that stood still in two or more tests of the run
// FAILs (an observed fault: it drains).
#pragma once

#include "analysis/load/observations.hpp"
#include "analysis/rules/model/finding.hpp"

#include <vector>

namespace shakedown::analysis {

std::vector<Finding> freeze_findings(const Observations& observations);

}  // namespace shakedown::analysis
