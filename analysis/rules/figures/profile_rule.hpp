// The expected profile's rule: every node against its class (src/profile). Hardware that is
// missing or different is a hardware FAIL naming it ("7 of 8 GPUs (H200) found; missing
// 0000:9b:00.0"); a test the class expects that did not run on the node, or measured fewer of
// its GPUs than the class has, is a FAIL too ("not run is not a pass"): hardware when the node
// lacks the device, configuration when the run or the build left it out. A node the profile does
// not name is configuration to fix. Findings are filed under the pseudo-test "profile" and the
// expected test's key.
#pragma once

#include "analysis/load/observations.hpp"
#include "analysis/load/run_details.hpp"
#include "analysis/rules/model/finding.hpp"
#include "profile/profile.hpp"

#include <vector>

namespace shakedown::analysis {

inline constexpr const char* profile_check_name = "profile";

std::vector<Finding> profile_findings(const Observations& observations, const profile::Profile& profile,
                                      RunDetails& details);

}  // namespace shakedown::analysis
