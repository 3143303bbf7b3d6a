#include "analysis/cli/calibrate_command.hpp"

#include "analysis/calibrate/calibrate_runs.hpp"
#include "core/errors.hpp"

#include <memory>
#include <string>
#include <vector>

namespace shakedown::analysis::cli {
namespace {

struct CalibrateArguments {
    std::vector<std::string> runs;
    std::string output;
    int min_runs = 3;
    std::string thresholds_file;
};

}  // namespace

Command add_calibrate_command(CLI::App& app) {
    auto args = std::make_shared<CalibrateArguments>();
    CLI::App* calibrate_app = app.add_subcommand(
        "calibrate", "write a site's calibrated figures of one GPU part from its healthy reference runs (golden "
                     "nodes), for --calibrated FILE: every run judged first; one not healthy, runs of mixed parts or "
                     "too few runs are refused");
    calibrate_app->add_option("RUN", args->runs, "healthy run folders of one GPU part")->required();
    calibrate_app->add_option("--output", args->output, "the calibration file to write (never overwritten)")->required();
    calibrate_app->add_option("--min-runs", args->min_runs, "runs that must have measured a figure (default 3)");
    calibrate_app->add_option("--thresholds", args->thresholds_file, "YAML file overriding the rules the runs are judged by");
    auto run = [args](std::ostream& out, std::ostream& err) {
        if (args->output.empty()) {
            err << "shakedown-analyze: calibrate --output is empty: give the file to write\n";
            return exit_code::bad_input;
        }
        CalibrateOptions options;
        for (const std::string& run_dir : args->runs) options.runs.emplace_back(run_dir);
        options.output = args->output;
        options.min_runs = args->min_runs;
        if (!args->thresholds_file.empty()) options.thresholds_file = args->thresholds_file;
        return calibrate(options, out, err);
    };
    return Command{calibrate_app, run};
}

}  // namespace shakedown::analysis::cli
