// shakedown-analyze RUN [--thresholds FILE.yaml] [--summary PATH] [--quiet]
#include "analysis/analyzer.hpp"
#include "core/errors.hpp"

#include <CLI/CLI.hpp>

#include <iostream>

int main(int argc, char** argv) {
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

    analysis::AnalyzeOptions options{.run_dir = run_dir, .quiet = quiet};
    if (!thresholds_file.empty()) options.thresholds_file = thresholds_file;
    if (!summary_path.empty()) options.summary_path = summary_path;
    return analysis::analyze(options, std::cout, std::cerr);
}
