// shakedown-analyze RUN [--thresholds FILE.yaml] [--baseline OLD_RUN] [--topology topology.conf] [--profile FILE]
//   [--price-per-node-hour X | --price-per-node-month X] [--format text|markdown] [--summary PATH]
//   [--junit PATH] [--html PATH | --no-html] [--drain PATH] [--drain-apply] [--quiet]
//   [--confirm] [--confirmation AGAIN_RUN]
// shakedown-analyze export RUN --format csv|openmetrics [--output FILE]
// shakedown-analyze compare OLD NEW [--format text|markdown|json] [--tolerance X]
// shakedown-analyze history FILE --node N [--metric M] [--format text|markdown|json]
// shakedown-analyze calibrate RUN... --output FILE [--min-runs N] [--thresholds FILE]
// Only the wiring lives here: each command's options and action are in analysis/cli/.
#include "analysis/cli/analyze_command.hpp"
#include "analysis/cli/calibrate_command.hpp"
#include "analysis/cli/compare_command.hpp"
#include "analysis/cli/export_command.hpp"
#include "analysis/cli/history_command.hpp"
#include "core/errors.hpp"
#include "core/git_commit.hpp"
#include "core/printable_text.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <malloc.h>

#include <iostream>
#include <vector>

namespace {

// HDF5 callocs a 1 MiB type-conversion buffer for every H5Dread of a compound table and frees
// it again; with glibc's default trim/mmap thresholds every such buffer is returned to the
// kernel and faulted back in, zero page by zero page. Keeping freed memory in the heap cut the
// load of 256 rank files from 7.6 s to 0.3 s of CPU (docs/benchmarks.md). Process-wide on
// purpose: it is this process's allocator policy, set once before anything is allocated.
void keep_freed_memory_in_the_heap() {
    constexpr int bytes = 256 << 20;
    mallopt(M_MMAP_THRESHOLD, bytes);
    mallopt(M_TRIM_THRESHOLD, bytes);
}

}  // namespace

int main(int argc, char** argv) {
    keep_freed_memory_in_the_heap();
    namespace cli = shakedown::analysis::cli;
    CLI::App app{"Judges a shakedown run folder: per-node verdicts with reasons (thresholds, fleet outliers, baseline\n"
                 "regressions, slow nodes/links/switches, slow ranks), telemetry explanations, and summary.json,\n"
                 "junit.xml, report.html and drain.txt in the run folder.\n"
                 "Exit codes: 0 all pass (warnings allowed), 1 failures, 2 bad input, 3 incomplete run."};
    app.set_version_flag("--version", fmt::format("shakedown-analyze {} (git {})", SHAKEDOWN_VERSION, shakedown::build_git_commit()));

    // The default form (RUN [options]) on the main app; each subcommand in its own file.
    const cli::Command analyze = cli::add_analyze_command(app);
    const std::vector<cli::Command> subcommands{cli::add_export_command(app), cli::add_compare_command(app),
                                                cli::add_history_command(app),
                                                cli::add_calibrate_command(app)};
    app.require_subcommand(0, 1);

    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& help) {
        return app.exit(help);
    } catch (const CLI::CallForVersion& version) {
        return app.exit(version);
    } catch (const CLI::ParseError& error) {
        std::cerr << "shakedown-analyze: " << shakedown::escape_control(error.what()) << " (see --help)\n";
        return shakedown::exit_code::bad_input;
    }

    for (const cli::Command& command : subcommands)
        if (command.app->parsed()) return command.run(std::cout, std::cerr);
    return analyze.run(std::cout, std::cerr);
}
