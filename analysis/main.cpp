// shakedown-analyze RUN [--thresholds FILE.yaml] [--baseline OLD_RUN] [--topology topology.conf] [--profile FILE]
//   [--price-per-node-hour X | --price-per-node-month X] [--format text|markdown] [--summary PATH]
//   [--junit PATH] [--html PATH | --no-html] [--drain PATH] [--drain-apply] [--quiet]
//   [--confirm] [--confirmation AGAIN_RUN]
#include "analysis/analyzer.hpp"
#include "core/errors.hpp"
#include "core/printable_text.hpp"

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
    CLI::App app{"Judges a shakedown run folder: per-node verdicts with reasons (thresholds, fleet outliers, baseline\n"
                 "regressions, slow nodes/links/switches, slow ranks), telemetry explanations, and summary.json,\n"
                 "junit.xml, report.html and drain.txt in the run folder.\n"
                 "Exit codes: 0 all pass (warnings allowed), 1 failures, 2 bad input, 3 incomplete run."};
    app.set_version_flag("--version", std::string("shakedown-analyze ") + SHAKEDOWN_VERSION);

    std::string run_dir;
    std::string thresholds_file;
    std::string summary_path;
    std::string junit_path;
    std::string html_path;
    std::string drain_path;
    std::string baseline_dir;
    std::string topology_file;
    std::string profile_file;
    std::string confirmation_dir;
    bool confirm = false;
    std::string format = "text";
    double price_hour = 0.0;
    double price_month = 0.0;
    bool no_html = false;
    bool drain_apply = false;
    bool quiet = false;
    app.add_option("RUN", run_dir, "run folder (holds run.json and rank-NNNNN.h5)")->required();
    app.add_option("--thresholds", thresholds_file, "YAML file overriding the built-in thresholds and settings");
    app.add_option("--baseline", baseline_dir, "an earlier run folder: report regressions beyond the tolerance");
    app.add_option("--topology", topology_file, "Slurm topology.conf: name the switch of a slow group of nodes");
    app.add_option("--profile", profile_file, "expected profile (YAML): what every node must have and run "
                                              "(default: the one the run recorded)");
    app.add_option("--confirmation", confirmation_dir,
                   "a run that measured this run's figure FAILs again (the tests --confirm names, on its nodes): "
                   "only FAILs it measured again drain; the others are WARN 'not reproduced'");
    app.add_flag("--confirm", confirm, "end with two lines for a job script: the tests and nodes a confirmation run "
                                       "must measure again (confirm-tests: A,B / confirm-nodes: N1,N2; empty: none)");
    auto* hour = app.add_option("--price-per-node-hour", price_hour, "node price per hour: price per usable TFLOP/s, GB/s");
    auto* month = app.add_option("--price-per-node-month", price_month, "node price per month (730 hours)");
    hour->excludes(month);
    app.add_option("--format", format, "terminal report: text or markdown (for a ticket)")
        ->check(CLI::IsMember({"text", "markdown"}));
    app.add_option("--summary", summary_path, "where to write summary.json (default RUN/summary.json)");
    app.add_option("--junit", junit_path, "where to write junit.xml (default RUN/junit.xml)");
    auto* html = app.add_option("--html", html_path, "where to write report.html (default RUN/report.html)");
    app.add_flag("--no-html", no_html, "do not write report.html")->excludes(html);
    app.add_option("--drain", drain_path, "where to write drain.txt (default RUN/drain.txt)");
    app.add_flag("--drain-apply", drain_apply, "run drain.txt's scontrol commands (never done without this flag)");
    app.add_flag("--quiet,-q", quiet, "print only the verdict line and the paths");

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

    // A path option given empty (an unset shell variable) would silently mean the default file.
    for (const char* option : {"--thresholds", "--baseline", "--topology", "--profile", "--confirmation", "--summary",
                               "--junit", "--html", "--drain"})
        if (app.count(option) > 0 && app[option]->as<std::string>().empty()) {
            std::cerr << "shakedown-analyze: " << option << " is empty: give a path, or leave " << option << " out\n";
            return shakedown::exit_code::bad_input;
        }

    analysis::AnalyzeOptions options;
    options.run_dir = run_dir;
    options.quiet = quiet;
    options.drain_apply = drain_apply;
    options.write_html = !no_html;
    options.format = format == "markdown" ? analysis::ReportFormat::markdown : analysis::ReportFormat::text;
    auto path_if = [](const std::string& text) {
        return text.empty() ? std::nullopt : std::optional<std::filesystem::path>(text);
    };
    options.thresholds_file = path_if(thresholds_file);
    options.summary_path = path_if(summary_path);
    options.junit_path = path_if(junit_path);
    options.html_path = path_if(html_path);
    options.drain_path = path_if(drain_path);
    options.baseline_dir = path_if(baseline_dir);
    options.topology_file = path_if(topology_file);
    options.profile_file = path_if(profile_file);
    options.confirmation_dir = path_if(confirmation_dir);
    options.print_confirmation_plan = confirm;
    if (*hour) options.price_per_node_hour = price_hour;
    if (*month) options.price_per_node_month = price_month;
    return analysis::analyze(options, std::cout, std::cerr);
}
