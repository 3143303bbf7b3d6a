// shakedown-analyze calibrate RUN... --output FILE [--min-runs N] [--thresholds FILE]
#pragma once

#include "analysis/cli/command.hpp"

namespace shakedown::analysis::cli {

Command add_calibrate_command(CLI::App& app);

}  // namespace shakedown::analysis::cli
