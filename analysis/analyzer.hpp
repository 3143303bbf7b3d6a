// One analysis from start to end, the way the shakedown-analyze command runs it: thresholds and
// topology, load the run (and the baseline), judge and localize and explain, write summary.json,
// junit.xml, report.html and drain.txt, print the terminal (or markdown) report; returns the exit
// code. main() only parses the command line, so tests call this directly as well.
#pragma once

#include "analysis/report/report_header.hpp"

#include <filesystem>
#include <optional>
#include <ostream>

namespace shakedown::analysis {

enum class ReportFormat { text, markdown };

struct AnalyzeOptions {
    std::filesystem::path run_dir;
    std::optional<std::filesystem::path> thresholds_file;  // overrides the built-in defaults
    // --calibrated FILE: a site's calibration (shakedown-analyze calibrate), merged over the built-in
    // one and over a thresholds file's `calibrated:`
    std::optional<std::filesystem::path> calibrated_file;
    std::optional<std::filesystem::path> ownership_file;  // what owning a node costs: rent against buy
    std::optional<std::filesystem::path> summary_path;     // default RUN/summary.json
    std::optional<std::filesystem::path> junit_path;       // default RUN/junit.xml
    std::optional<std::filesystem::path> html_path;        // default RUN/report.html
    std::optional<std::filesystem::path> drain_path;       // default RUN/drain.txt
    bool write_html = true;
    // --template-dir DIR: report.html.mustache and report.md.mustache of a site (default: built in)
    std::optional<std::filesystem::path> template_dir;
    std::optional<std::filesystem::path> pdf_path;  // --pdf FILE: report.html printed by headless Chromium
    PaperSize paper = PaperSize::a4;                // --paper a4|letter
    std::optional<std::filesystem::path> baseline_dir;     // --baseline OLD_RUN
    std::optional<std::filesystem::path> topology_file;    // Slurm topology.conf
    std::optional<std::filesystem::path> profile_file;     // expected profile; default RUN's profile.yaml, if any
    // --confirmation AGAIN: the run that measured RUN's figure FAILs again (rules/model/confirmation.hpp)
    std::optional<std::filesystem::path> confirmation_dir;
    bool print_confirmation_plan = false;  // --confirm: the plan's tests and nodes as two lines for a job script
    std::optional<double> price_per_node_hour;             // override the thresholds file's price
    std::optional<double> price_per_node_month;
    std::optional<double> energy_per_kwh;                  // override the thresholds file's price.energy_per_kwh
    ReportFormat format = ReportFormat::text;
    // --history FILE: append the judged run to this results history (analysis/history/)
    std::optional<std::filesystem::path> history_file;
    bool drain_apply = false;  // run the scontrol lines of drain.txt (never by default)
    bool quiet = false;
    // --jobs N: reader processes for the run's traces (and the baseline's and the confirmation's, and the
    // node leaders' telemetry the rules read);
    // unset: the loader's default (load/run_loader.hpp). Below 1 is bad input. Any N loads the same.
    std::optional<int> jobs;
};

// Exit codes: 0 all pass (WARN included), 1 some FAIL, 2 bad input, 3 incomplete run.
// Bad input prints one line on `err`; everything else goes to `out`.
int analyze(const AnalyzeOptions& options, std::ostream& out, std::ostream& err);

}  // namespace shakedown::analysis
