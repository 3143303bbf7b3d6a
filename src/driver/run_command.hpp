#pragma once

#include "core/config.hpp"

namespace shakedown {

// `shakedown run`: starts MPI, runs the selected tests on every rank, writes the traces and
// run.json. Returns the process exit code (0 all passed or waived, 1 a test failed, 2 bad input).
int run_command(const Config& config, int& argc, char**& argv);

}  // namespace shakedown
