#pragma once

#include "core/registry.hpp"

#include <string>

namespace shakedown {

// The table `shakedown list` prints: key, suites, description, then each parameter.
std::string format_test_list(const Registry& registry);

}  // namespace shakedown
