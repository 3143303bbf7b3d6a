// junit.xml for CI systems, valid against the xunit/Jenkins junit-10.xsd: one <testsuite> per
// node (hostname, timestamp of its first rank's start, <properties>: run, build, Slurm job,
// verdict), one <testcase> per node x test (the test's results on all of the node's ranks). A
// hardware FAIL makes a <failure> (type: the reason code; message: the first reason; text: every
// failing reason with its rank and telemetry); a configuration or software FAIL an <error> (type:
// the cause class); WARNs go to <system-out>; a test waived on every rank of the node is
// <skipped>. Ranks that could not be read make a "run completeness" testcase with an <error>.
#pragma once

#include "analysis/report/report_model.hpp"

#include <string>

namespace shakedown::analysis {

std::string junit_xml(const ReportModel& model);

}  // namespace shakedown::analysis
