// The calibrated references: analysis/thresholds/calibrated.yaml, embedded at build time.
#pragma once

#include <string_view>

namespace shakedown::analysis {

std::string_view calibrated_references_yaml();

}  // namespace shakedown::analysis
