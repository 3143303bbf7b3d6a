#pragma once

#include <optional>
#include <string>

#include "core/config.hpp"

namespace shakedown {

// `shakedown run`: starts MPI, runs the selected tests on every rank, writes the traces and
// run.json. Returns the process exit code (0 all passed or waived, 1 a test failed, 2 bad input).
// `profile_yaml`: the expected profile (validated), written into the run folder as profile.yaml
// for the analyzer to judge the nodes against; nothing without one.
int run_command(const Config& config, const std::optional<std::string>& profile_yaml, int& argc, char**& argv);

}  // namespace shakedown
