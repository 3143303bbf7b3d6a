// The default form, `shakedown-analyze RUN [options]`: judge a run folder and write its reports.
#pragma once

#include "analysis/cli/command.hpp"

namespace shakedown::analysis::cli {

// Declares RUN and the analysis options on the main app. RUN is not marked required there: a
// subcommand (export, compare, history) takes the place of RUN, so run() refuses a missing RUN.
Command add_analyze_command(CLI::App& app);

}  // namespace shakedown::analysis::cli
