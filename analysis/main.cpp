// shakedown-analyze RUN [--thresholds FILE.yaml] [--summary PATH] [--quiet]
#include "analysis/analyzer.hpp"
#include "core/errors.hpp"

#include <CLI/CLI.hpp>

#include <malloc.h>

#include <iostream>

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
    namespace analysis = shakedown::analysis;
    CLI::App app{"Judges a shakedown run folder: per-node verdicts, failures with reasons, summary.json.\n"
                 "Exit codes: 0 all pass (warnings allowed), 1 failures, 2 bad input, 3 incomplete run."};
    app.set_version_flag("--version", std::string("shakedown-analyze ") + SHAKEDOWN_VERSION);

    std::string run_dir;
    std::string thresholds_file;
    std::string summary_path;
    bool quiet = false;
    app.add_option("RUN", run_dir, "run folder (holds run.json and rank-NNNNN.h5)")->required();
    app.add_option("--thresholds", thresholds_file, "YAML file overriding the built-in thresholds per metric");
    app.add_option("--summary", summary_path, "where to write summary.json (default RUN/summary.json)");
    app.add_flag("--quiet,-q", quiet, "print only the verdict line and the paths");

    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& help) {
        return app.exit(help);
    } catch (const CLI::CallForVersion& version) {
        return app.exit(version);
    } catch (const CLI::ParseError& error) {
        std::cerr << "shakedown-analyze: " << error.what() << " (see --help)\n";
        return shakedown::exit_code::bad_input;
    }

    analysis::AnalyzeOptions options;
    options.run_dir = run_dir;
    options.quiet = quiet;
    if (!thresholds_file.empty()) options.thresholds_file = thresholds_file;
    if (!summary_path.empty()) options.summary_path = summary_path;
    return analysis::analyze(options, std::cout, std::cerr);
}
