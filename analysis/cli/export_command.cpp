#include "analysis/cli/export_command.hpp"

#include "core/errors.hpp"

#include <memory>
#include <string>

namespace shakedown::analysis::cli {
namespace {

struct ExportArguments {
    std::string run_dir;
    std::string format;
    std::string output;
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
    auto run = [args](std::ostream&, std::ostream& err) {
        err << "shakedown-analyze: export is not built yet\n";
        return exit_code::bad_input;
    };
    return Command{export_app, run};
}

}  // namespace shakedown::analysis::cli
