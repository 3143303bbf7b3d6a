// `shakedown-analyze compare OLD NEW [--format text|markdown|json] [--tolerance X]`: each node's
// figures and health counters of run folder NEW against OLD (docs/analyzer.md, "Results history").
#pragma once

#include "analysis/cli/command.hpp"
#include "analysis/rules/settings/thresholds.hpp"

#include <functional>

namespace shakedown::analysis::cli {

// `thresholds` gives the default tolerance (the baseline's); it is called only when the command
// runs without --tolerance, inside its guard, so a thresholds text it cannot read is one line and
// exit 2, never an abort while the command line is being declared.
Command add_compare_command(CLI::App& app, std::function<Thresholds()> thresholds = &Thresholds::built_in);

}  // namespace shakedown::analysis::cli
