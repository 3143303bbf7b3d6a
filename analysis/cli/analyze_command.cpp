#include "analysis/cli/analyze_command.hpp"

#include "analysis/analyzer.hpp"
#include "analysis/rules/settings/default_thresholds.hpp"
#include "core/errors.hpp"

#include <memory>
#include <optional>
#include <string>

namespace shakedown::analysis::cli {
namespace {

// What the command line gave; held by the run callback (CLI11 writes into it while parsing).
struct AnalyzeArguments {
    std::string run_dir;
    std::string thresholds_file;
    std::string calibrated_file;
    std::string ownership_file;
    std::string summary_path;
    std::string junit_path;
    std::string html_path;
    std::string drain_path;
    std::string baseline_dir;
    std::string topology_file;
    std::string profile_file;
    std::string confirmation_dir;
    std::string history_file;
    std::string template_dir;
    std::string pdf_path;
    bool confirm = false;
    std::string format = "text";
    std::string paper = "a4";
    double price_hour = 0.0;
    double energy_price = 0.0;
    double price_month = 0.0;
    bool no_html = false;
    bool drain_apply = false;
    bool quiet = false;
    bool print_thresholds = false;
    int jobs = 0;  // read only when --jobs was given
};

std::optional<std::filesystem::path> path_if(const std::string& text) {
    return text.empty() ? std::nullopt : std::optional<std::filesystem::path>(text);
}

}  // namespace

Command add_analyze_command(CLI::App& app) {
    auto args = std::make_shared<AnalyzeArguments>();
    app.add_option("RUN", args->run_dir, "run folder (holds run.json and rank-NNNNN.h5)");
    app.add_option("--thresholds", args->thresholds_file, "YAML file overriding the built-in thresholds and settings");
    app.add_option("--calibrated", args->calibrated_file,
                   "a site's calibration (shakedown-analyze calibrate writes one): its parts' healthy figures, "
                   "judged before the built-in ones");
    app.add_option("--baseline", args->baseline_dir, "an earlier run folder: report regressions beyond the tolerance");
    app.add_option("--topology", args->topology_file, "Slurm topology.conf: name the switch of a slow group of nodes");
    app.add_option("--profile", args->profile_file, "expected profile (YAML): what every node must have and run "
                                                    "(default: the one the run recorded)");
    app.add_option("--confirmation", args->confirmation_dir,
                   "a run that measured this run's figure FAILs again (the tests --confirm names, on its nodes): "
                   "only FAILs it measured again drain; the others are WARN 'not reproduced'");
    app.add_flag("--confirm", args->confirm, "end with two lines for a job script: the tests and nodes a confirmation "
                                             "run must measure again (confirm-tests: A,B / confirm-nodes: N1,N2; empty: none)");
    auto* hour = app.add_option("--price-per-node-hour", args->price_hour,
                                "node price per hour: price per usable TFLOP/s, GB/s");
    auto* month = app.add_option("--price-per-node-month", args->price_month, "node price per month (730 hours)");
    hour->excludes(month);
    app.add_option("--ownership", args->ownership_file,
                   "YAML of what owning a node costs (purchase_per_node, depreciation_months, hosting_per_node_month, pue; "
                   "energy_per_kwh, node_power_w): the Price section's rent against buy, beside the node price");
    auto* energy = app.add_option("--energy-price-per-kwh", args->energy_price,
                                  "energy price per kWh: the energy cost of the Workload section's standard task");
    app.add_option("--format", args->format, "terminal report: text or markdown (for a ticket)")
        ->check(CLI::IsMember({"text", "markdown"}));
    app.add_option("--summary", args->summary_path, "where to write summary.json (default RUN/summary.json)");
    app.add_option("--junit", args->junit_path, "where to write junit.xml (default RUN/junit.xml)");
    auto* html = app.add_option("--html", args->html_path, "where to write report.html (default RUN/report.html)");
    auto* no_html = app.add_flag("--no-html", args->no_html, "do not write report.html")->excludes(html);
    app.add_option("--template-dir", args->template_dir,
                   "a folder with the site's report.html.mustache and report.md.mustache (copies of "
                   "share/shakedown/templates/) to render report.html and --format markdown from");
    app.add_option("--pdf", args->pdf_path, "also print report.html to this PDF file with headless Chromium "
                                             "(chromium on PATH)")
        ->excludes(no_html);
    app.add_option("--paper", args->paper, "the page report.html and its PDF print on: a4 (default) or letter")
        ->check(CLI::IsMember({"a4", "letter"}));
    app.add_option("--drain", args->drain_path, "where to write drain.txt (default RUN/drain.txt)");
    app.add_flag("--drain-apply", args->drain_apply, "run drain.txt's scontrol commands (never done without this flag)");
    app.add_flag("--quiet,-q", args->quiet, "print only the verdict line and the paths");
    app.add_option("--history", args->history_file,
                   "results history (SQLite; created when absent): append this run after judging it "
                   "(the same run again replaces its entry); read by `compare` and `history`");
    auto* jobs = app.add_option("--jobs,-j", args->jobs,
                                "reader processes for the traces (default: the cores this process may use; "
                                "any number gives the same result)");
    app.add_flag("--print-thresholds", args->print_thresholds,
                 "print the built-in thresholds and settings (a file --thresholds accepts) and exit");

    CLI::App* main_app = &app;
    auto run = [args, main_app, hour, month, energy, jobs](std::ostream& out, std::ostream& err) {
        // The built-in file itself, comments included: the reference a site edits a copy of.
        if (args->print_thresholds) {
            out << default_thresholds_yaml();
            return exit_code::ok;
        }
        if (args->run_dir.empty() && main_app->count("RUN") == 0) {
            err << "shakedown-analyze: RUN is required: give a run folder, or a command (see --help)\n";
            return exit_code::bad_input;
        }
        // A path option given empty (an unset shell variable) would silently mean the default file.
        for (const char* option : {"--thresholds", "--calibrated", "--baseline", "--topology", "--profile", "--confirmation",
                                   "--summary", "--junit", "--html", "--drain", "--history", "--template-dir", "--pdf", "--ownership"})
            if (main_app->count(option) > 0 && (*main_app)[option]->as<std::string>().empty()) {
                err << "shakedown-analyze: " << option << " is empty: give a path, or leave " << option << " out\n";
                return exit_code::bad_input;
            }

        AnalyzeOptions options;
        options.run_dir = args->run_dir;
        options.quiet = args->quiet;
        options.drain_apply = args->drain_apply;
        options.write_html = !args->no_html;
        options.format = args->format == "markdown" ? ReportFormat::markdown : ReportFormat::text;
        options.thresholds_file = path_if(args->thresholds_file);
        options.calibrated_file = path_if(args->calibrated_file);
        options.ownership_file = path_if(args->ownership_file);
        options.summary_path = path_if(args->summary_path);
        options.junit_path = path_if(args->junit_path);
        options.html_path = path_if(args->html_path);
        options.drain_path = path_if(args->drain_path);
        options.baseline_dir = path_if(args->baseline_dir);
        options.topology_file = path_if(args->topology_file);
        options.profile_file = path_if(args->profile_file);
        options.confirmation_dir = path_if(args->confirmation_dir);
        options.history_file = path_if(args->history_file);
        options.template_dir = path_if(args->template_dir);
        options.pdf_path = path_if(args->pdf_path);
        options.paper = args->paper == "letter" ? PaperSize::letter : PaperSize::a4;
        options.print_confirmation_plan = args->confirm;
        if (*hour) options.price_per_node_hour = args->price_hour;
        if (*month) options.price_per_node_month = args->price_month;
        if (*energy) options.energy_per_kwh = args->energy_price;
        if (*jobs) options.jobs = args->jobs;  // checked by analyze(): below 1 is one line and exit 2
        return analyze(options, out, err);
    };
    return Command{&app, run};
}

}  // namespace shakedown::analysis::cli
