// `shakedown-analyze history FILE --node N [--metric M] [--format text|markdown|json]`: a node's
// figures over the runs of a results history beside each run's fleet median, and its counter
// trends (docs/analyzer.md, "Results history").
#pragma once

#include "analysis/cli/command.hpp"

namespace shakedown::analysis::cli {

Command add_history_command(CLI::App& app);

}  // namespace shakedown::analysis::cli
