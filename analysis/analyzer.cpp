#include "analysis/analyzer.hpp"

#include "analysis/history/history_store.hpp"
#include "analysis/load/observations.hpp"
#include "analysis/load/remeasured_run.hpp"
#include "analysis/load/run_details.hpp"
#include "analysis/load/run_loader.hpp"
#include "analysis/report/drain_output.hpp"
#include "analysis/report/html_report.hpp"
#include "analysis/report/junit_report.hpp"
#include "analysis/report/markdown_report.hpp"
#include "analysis/report/markup.hpp"
#include "analysis/report/pdf_output.hpp"
#include "analysis/report/report_model.hpp"
#include "analysis/report/report_templates.hpp"
#include "analysis/report/report_view.hpp"
#include "analysis/report/summary_json.hpp"
#include "analysis/report/terminal_report.hpp"
#include "analysis/rules/model/apply_rules.hpp"
#include "analysis/rules/settings/thresholds.hpp"
#include "comm/congestion_ring_columns.hpp"
#include "core/clock.hpp"
#include "core/errors.hpp"
#include "core/json_text.hpp"
#include "core/output_file.hpp"
#include "core/registry.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>

namespace shakedown::analysis {
namespace {

// How long an analyzer waits for another renaming the same outputs into place (microseconds): a
// holder stuck for longer is named in one line rather than waited on without end.
constexpr double output_lock_wait_s = 120.0;

// Every metric any test of this build declares: what a thresholds key must name.
std::vector<std::string> declared_metrics() {
    std::vector<std::string> names;
    for (const auto& test : Registry::instance().tests())
        for (std::string& name : test->spec().metric_names()) names.push_back(std::move(name));
    return names;
}

Thresholds resolve_thresholds(const AnalyzeOptions& options) {
    Thresholds thresholds = Thresholds::built_in();
    if (options.thresholds_file) {
        const Thresholds given = Thresholds::from_file(*options.thresholds_file);
        given.require_declared(declared_metrics());
        thresholds = thresholds.overridden_by(given);
        if (given.calibration_file())
            thresholds = thresholds.with_calibration_over(CalibratedReferences::from_file(*given.calibration_file()));
    }
    if (options.calibrated_file)
        thresholds = thresholds.with_calibration_over(CalibratedReferences::from_file(options.calibrated_file->string()));
    if (options.price_per_node_hour && options.price_per_node_month)
        throw InputError("give --price-per-node-hour or --price-per-node-month, not both");
    AnalysisSettings command_line;
    for (const auto& price : {options.price_per_node_hour, options.price_per_node_month})
        if (price && !(*price > 0.0 && *price <= max_node_price))
            throw InputError(fmt::format("a node price must be a number above 0 and up to {:g}, got {}", max_node_price, *price));
    command_line.price_per_node_hour = options.price_per_node_hour;
    command_line.price_per_node_month = options.price_per_node_month;
    if (options.energy_per_kwh && !(*options.energy_per_kwh > 0.0 && *options.energy_per_kwh <= max_energy_price))
        throw InputError(fmt::format("an energy price must be a number above 0 and up to {:g} per kWh, got {}",
                                     max_energy_price, *options.energy_per_kwh));
    command_line.energy_per_kwh = options.energy_per_kwh;
    if (options.ownership_file) command_line.ownership = read_ownership_file(*options.ownership_file);
    thresholds.settings().merge(command_line);
    return thresholds;
}

// Everything that can be bad input is checked before the first trace is read.
struct Inputs {
    Thresholds thresholds;
    std::optional<Topology> topology;
    std::optional<profile::Profile> profile;
    LoadedRun run;
    std::optional<LoadedRun> baseline;
    std::optional<LoadedRun> confirmation;
    ReportTemplates templates;
    std::vector<ThresholdsSource> thresholds_sources;  // the report header's paths and sha256
    std::optional<std::filesystem::path> chromium;     // with --pdf
    int reader_jobs = 1;                               // --jobs, else the loader's default
};

Inputs read_inputs(const AnalyzeOptions& options) {
    Inputs inputs;
    inputs.thresholds = resolve_thresholds(options);
    inputs.thresholds_sources = thresholds_sources(options.thresholds_file);
    inputs.templates = options.template_dir ? ReportTemplates::from_dir(*options.template_dir) : ReportTemplates::built_in();
    if (options.pdf_path) {
        const char* path = std::getenv("PATH");
        inputs.chromium = find_chromium(path != nullptr ? path : "");
        if (!inputs.chromium)
            throw InputError(fmt::format("--pdf {}: chromium (or chromium-browser) is not on PATH: it prints the PDF "
                                         "(Debian: apt-get install chromium)", options.pdf_path->string()));
    }
    if (options.topology_file) inputs.topology = Topology::from_file(*options.topology_file);
    if (options.jobs && *options.jobs < 1)
        throw InputError(fmt::format("--jobs must be 1 or more (reader processes), got {}", *options.jobs));
    RunLoadOptions load;
    if (options.jobs) load.jobs = *options.jobs;
    inputs.reader_jobs = load.jobs;
    inputs.run = load_run(options.run_dir, load);
    // The profile given, else the one the run recorded (`shakedown run --profile/--gpus-per-node`).
    if (options.profile_file) {
        inputs.profile = profile::read_profile(options.profile_file->string(), Registry::instance().keys());
    } else if (!inputs.run.manifest.profile.empty()) {
        const std::filesystem::path recorded = inputs.run.manifest.profile;
        if (recorded.has_parent_path() || recorded.filename() != recorded)
            throw InputError(fmt::format("{}: run.json's profile '{}' is not a file name in the run folder",
                                         options.run_dir.string(), recorded.string()));
        inputs.profile = profile::read_profile((options.run_dir / recorded).string(), Registry::instance().keys());
    }
    if (options.confirmation_dir) {
        try {
            inputs.confirmation = load_run(*options.confirmation_dir, load);
        } catch (const InputError& error) {
            throw InputError(fmt::format("--confirmation: {}", error.what()));
        }
    }
    if (options.baseline_dir) {
        try {
            inputs.baseline = load_run(*options.baseline_dir, load);
        } catch (const InputError& error) {
            throw InputError(fmt::format("--baseline: {}", error.what()));
        }
    }
    return inputs;
}

struct OutputPaths {
    std::filesystem::path summary;
    std::filesystem::path junit;
    std::optional<std::filesystem::path> html;
    std::filesystem::path drain;
};

}  // namespace

int analyze(const AnalyzeOptions& options, std::ostream& out, std::ostream& err) {
    Inputs inputs;
    std::optional<HistoryStore> history;
    try {
        // Thresholds first: a typo in them should not cost the time of loading 4096 traces.
        inputs = read_inputs(options);
        // A history that is not one (another file, a newer schema) is refused before anything is written.
        if (options.history_file) history.emplace(*options.history_file, HistoryStore::Access::append);
    } catch (const InputError& error) {
        err << "shakedown-analyze: " << escape_control(error.what()) << '\n';
        return exit_code::bad_input;
    }
    // load -> rules -> report: the rules read only the observations (and, for telemetry and the
    // link matrix, the details read on demand); every renderer reads only the one report model.
    std::optional<Observations> baseline;
    if (inputs.baseline) baseline.emplace(*inputs.baseline);
    auto judge_run = [&](const Observations& observations, RunDetails& details) {
        return apply_rules(observations, inputs.thresholds, baseline ? &*baseline : nullptr,
                           inputs.topology ? &*inputs.topology : nullptr, details,
                           inputs.profile ? &*inputs.profile : nullptr, inputs.reader_jobs);
    };
    const Observations first_observations(inputs.run);
    RunDetails first_details(inputs.run);
    AnalysisResult result = judge_run(first_observations, first_details);
    // With a confirmation run: the same rules over the run with its figures measured again in
    // place, and each figure FAIL confirmed or not reproduced (rules/model/confirmation.hpp).
    std::optional<RemeasuredRun> remeasured;
    std::optional<Observations> remeasured_observations;
    std::optional<RunDetails> remeasured_details;
    if (inputs.confirmation) {
        try {
            const RunDetails again(*inputs.confirmation);
            std::map<std::string, SampleTable> again_ring_tables;
            for (const auto key : congestion_ring_columns::tests)
                if (auto table = again.rank0_samples(std::string(key))) again_ring_tables.emplace(key, std::move(*table));
            std::map<std::string, SampleTable> again_matrices;
            for (LinkMatrix& matrix : link_matrices_of(again)) again_matrices.emplace(matrix.name, std::move(matrix.table));
            remeasured = remeasure(inputs.run, *inputs.confirmation, again_matrices, again_ring_tables);
        } catch (const InputError& error) {
            err << "shakedown-analyze: " << escape_control(error.what()) << '\n';
            return exit_code::bad_input;
        }
        remeasured_observations.emplace(remeasured->run);
        remeasured_details.emplace(remeasured->run, remeasured->ring_tables);
        AnalysisResult again = judge_run(*remeasured_observations, *remeasured_details);
        std::vector<Finding> confirmed =
            confirm_findings(all_findings(result.judgement), all_findings(again.judgement), remeasured->remeasured,
                             result.all_links());
        again.judgement = judge(*remeasured_observations, std::move(confirmed));
        again.confirmation = confirmation_plan(again.judgement, *remeasured_observations);
        again.confirmation_run = remeasured->remeasured.run_id;
        result = std::move(again);
    }
    const LoadedRun& run = remeasured ? remeasured->run : inputs.run;
    const Observations& observations = remeasured_observations ? *remeasured_observations : first_observations;
    RunDetails& details = remeasured_details ? *remeasured_details : first_details;
    const ReportModel model = make_report_model(observations, result, inputs.thresholds.settings());
    const double analyzed_utc = now_utc();
    const ReportContext report_context =
        make_report_context(model, details, inputs.templates, inputs.thresholds_sources, analyzed_utc, options.paper);

    const OutputPaths paths{options.summary_path.value_or(run.dir / "summary.json"),
                            options.junit_path.value_or(run.dir / "junit.xml"),
                            options.write_html ? std::optional(options.html_path.value_or(run.dir / "report.html"))
                                               : std::nullopt,
                            options.drain_path.value_or(run.dir / "drain.txt")};
    SummaryContext context{.thresholds_source = inputs.thresholds.source(), .analyzed_utc = analyzed_utc, .outputs = {}};
    context.outputs["junit"] = paths.junit.string();
    context.outputs["drain"] = paths.drain.string();
    if (paths.html) context.outputs["html"] = paths.html->string();

    std::vector<std::pair<std::string, std::string>> written;
    int code = result.judgement.exit_code();
    const DrainList drain = drain_list(result.judgement);
    for (const std::string& node : drain.refused) {  // never passed to scontrol; the others still drain
        err << fmt::format("shakedown-analyze: node '{}' fails but is not left in drain.txt: not a Slurm node name "
                           "(letters, digits, '-', '_', '.')\n", escape_control(node));
        code = exit_code::bad_input;
    }
    bool outputs_written = false;
    std::string markdown;
    try {
        // Every target first: one that is a link, a FIFO or a device refuses them all, so no
        // output of this analysis is written beside an old one of another.
        for (const std::filesystem::path* target : {&paths.summary, &paths.junit, &paths.drain})
            check_output_target(*target);
        if (paths.html) check_output_target(*paths.html);
        if (options.pdf_path) check_output_target(*options.pdf_path);
        // Rendered before anything is written: a site's template that fails leaves no output of this run.
        if (options.format == ReportFormat::markdown) markdown = markdown_report(model, report_context);
        const std::string html = paths.html ? html_report(model, inputs.thresholds, details, report_context) : "";
        // One analysis's files, never mixed with another's: a killed analyzer leaves the previous
        // set whole (one killed while writing report.html had left summary.json FAIL beside a
        // report.html PASS), and a second analyzer of the same run renames its set only when the
        // first has renamed all of its own.
        OutputSet outputs;
        outputs.add(paths.summary, json_text(summary_to_json(model, context), 2) + "\n");
        outputs.add(paths.junit, junit_xml(model));
        if (paths.html) outputs.add(*paths.html, html);
        outputs.add(paths.drain, slurm::format_drain_file(drain.requests, run.manifest.run_id));
        {
            const OutputFolderLock lock(paths.summary.parent_path(), output_lock_wait_s);
            outputs.commit();
        }
        written.emplace_back("JUnit", paths.junit.string());
        if (paths.html) written.emplace_back("Report", paths.html->string());
        written.emplace_back("Drain list", fmt::format("{} ({} node(s){})", paths.drain.string(), drain.requests.size(),
                                                       options.drain_apply ? "" : "; not applied: --drain-apply runs it"));
        outputs_written = true;
        if (options.pdf_path && paths.html) {  // last: the judged outputs stand even when the browser fails
            print_to_pdf(*inputs.chromium, *paths.html, *options.pdf_path);
            written.emplace_back("PDF", options.pdf_path->string());
        }
    } catch (const InputError& error) {
        err << "shakedown-analyze: " << escape_control(error.what()) << '\n';
        code = exit_code::bad_input;
    }

    if (history && outputs_written) {
        try {
            const auto appended = history->append(make_run_record(observations, &result.judgement, details),
                                                  format_utc(now_utc()));
            written.emplace_back("History", fmt::format("{} (run {} {})", history->path().string(), run.manifest.run_id,
                                                        appended == HistoryStore::Appended::added
                                                            ? "added" : "replaced: it was in the history already"));
        } catch (const InputError& error) {
            err << "shakedown-analyze: " << escape_control(error.what()) << '\n';
            code = exit_code::bad_input;
        }
    }

    if (options.format == ReportFormat::markdown) out << markdown;
    else print_terminal_report(out, model, outputs_written ? paths.summary : std::filesystem::path(),
                               {.quiet = options.quiet}, written);
    // For the job script's confirmation step; empty lists when nothing awaits.
    if (options.print_confirmation_plan)
        out << escape_control(fmt::format("confirm-tests: {}", fmt::join(result.confirmation.tests, ","))) << '\n'
            << escape_control(fmt::format("confirm-nodes: {}", fmt::join(result.confirmation.nodes, ","))) << '\n';

    // Hardware failures drain even when something else is to fix: those nodes are bad either way.
    if (options.drain_apply && outputs_written) {
        for (const slurm::DrainOutcome& outcome : slurm::apply_drain_list(drain.requests))
            out << escape_control(fmt::format("drain {}: {}{}", outcome.node, outcome.exit_code == 0 ? "done" : "FAILED: ",
                                              outcome.exit_code == 0 ? "" : outcome.message))
                << '\n';
    }
    return code;
}

}  // namespace shakedown::analysis
