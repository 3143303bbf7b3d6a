// junit.xml for CI systems: one <testsuite> per node, one <testcase> per node x test (the test's
// results on all of the node's ranks). A FAIL finding makes a <failure> (message: the first
// reason; text: every failing reason with its rank and telemetry), WARNs go to <system-out>, a
// test waived on every rank of the node is <skipped>. Ranks that could not be read make a
// "run completeness" testcase with an <error>.
#pragma once

#include "analysis/report/report_model.hpp"

#include <string>

namespace shakedown::analysis {

std::string junit_xml(const ReportModel& model);

}  // namespace shakedown::analysis
