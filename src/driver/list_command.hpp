#pragma once

#include "core/registry.hpp"

#include <string>

namespace shakedown {

// The table `shakedown list` prints: key, suites, description, then each parameter.
std::string format_test_list(const Registry& registry);

// `shakedown list --json`: every declaration as tools read it, one array of
// {key, description, suites, built, not_built_reason, min_ranks, default_deadline_s,
//  parameters [{name, kind, default, description, auto, suite_defaults}],
//  metrics [{name, names, unit, better, scope, bound, nominal_role, description}], samples [{name, unit}]}.
std::string format_test_list_json(const Registry& registry);

}  // namespace shakedown
