// `shakedown-analyze export RUN --format csv|openmetrics [--output FILE]`: the measured values of a
// run as tidy rows for other tools (docs/analyzer.md, "Exports").
#pragma once

#include "analysis/cli/command.hpp"

namespace shakedown::analysis::cli {

Command add_export_command(CLI::App& app);

}  // namespace shakedown::analysis::cli
