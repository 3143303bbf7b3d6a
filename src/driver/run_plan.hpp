// `shakedown run --dry-run`: what a run with this configuration would do, printed before anything
// starts: the tests in order with their resolved parameters, deadlines and expected lengths, the
// faults it plants, and the run folder it would make. Nothing is started (no MPI, no device) and
// nothing is written, so a configuration can be checked on a login node before a job is queued.
#pragma once

#include "core/config.hpp"
#include "core/registry.hpp"

#include <string>
#include <vector>

namespace shakedown {

// `tests`: the selection (Registry::select of the configuration).
std::string format_run_plan(const Config& config, const Registry& registry, const std::vector<const Test*>& tests);

}  // namespace shakedown
