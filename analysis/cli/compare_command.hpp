// `shakedown-analyze compare OLD NEW [--format text|markdown|json] [--tolerance X]`: each node's
// figures and health counters of run folder NEW against OLD (docs/analyzer.md, "Results history").
#pragma once

#include "analysis/cli/command.hpp"

namespace shakedown::analysis::cli {

Command add_compare_command(CLI::App& app);

}  // namespace shakedown::analysis::cli
