// The built-in thresholds: analysis/thresholds/default.yaml, embedded at build time.
#pragma once

#include <string_view>

namespace shakedown::analysis {

std::string_view default_thresholds_yaml();

}  // namespace shakedown::analysis
