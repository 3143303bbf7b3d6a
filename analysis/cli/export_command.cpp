#include "analysis/cli/export_command.hpp"

#include "analysis/export/export_run.hpp"
#include "core/errors.hpp"

#include <memory>
#include <string>

namespace shakedown::analysis::cli {
namespace {

struct ExportArguments {
    std::string run_dir;
    std::string format;
    std::string output;
    std::string thresholds_file;
};

}  // namespace

Command add_export_command(CLI::App& app) {
    auto args = std::make_shared<ExportArguments>();
    CLI::App* export_app = app.add_subcommand("export", "write a run's measured values as tidy rows (run, node, rank, "
                                                        "gpu_uuid, test, metric, unit, value, nominal, level)");
    export_app->add_option("RUN", args->run_dir, "run folder (holds run.json and rank-NNNNN.h5)")->required();
    export_app->add_option("--format", args->format, "csv, or openmetrics (for node_exporter's textfile collector)")
        ->required()
        ->check(CLI::IsMember({"csv", "openmetrics"}));
    export_app->add_option("--output", args->output, "file to write (default: standard output)");
    export_app->add_option("--thresholds", args->thresholds_file,
                           "YAML file overriding the built-in thresholds (the levels, as the analysis judges them)");
    auto run = [args, export_app](std::ostream& out, std::ostream& err) {
        // A path option given empty (an unset shell variable) would silently mean the default.
        for (const char* option : {"--output", "--thresholds"})
            if (export_app->count(option) > 0 && (*export_app)[option]->as<std::string>().empty()) {
                err << "shakedown-analyze: export " << option << " is empty: give a path, or leave " << option
                    << " out\n";
                return exit_code::bad_input;
            }
        ExportOptions options;
        options.run_dir = args->run_dir;
        options.format = args->format == "openmetrics" ? ExportFormat::openmetrics : ExportFormat::csv;
        if (!args->output.empty()) options.output = args->output;
        if (!args->thresholds_file.empty()) options.thresholds_file = args->thresholds_file;
        return export_run(options, out, err);
    };
    return Command{export_app, run};
}

}  // namespace shakedown::analysis::cli
