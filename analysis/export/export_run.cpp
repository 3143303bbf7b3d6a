#include "analysis/export/export_run.hpp"

#include "analysis/export/tidy_csv.hpp"
#include "analysis/export/tidy_openmetrics.hpp"
#include "analysis/export/tidy_rows.hpp"
#include "analysis/load/observations.hpp"
#include "analysis/load/run_details.hpp"
#include "analysis/load/run_loader.hpp"
#include "analysis/rules/model/apply_rules.hpp"
#include "analysis/rules/settings/thresholds.hpp"
#include "core/errors.hpp"
#include "core/output_file.hpp"
#include "core/printable_text.hpp"
#include "core/registry.hpp"

namespace shakedown::analysis {
namespace {

Thresholds export_thresholds(const ExportOptions& options) {
    Thresholds thresholds = Thresholds::built_in();
    if (!options.thresholds_file) return thresholds;
    const Thresholds given = Thresholds::from_file(*options.thresholds_file);
    // As the analysis refuses them: a key naming no declared metric would judge nothing.
    std::vector<std::string> declared;
    for (const auto& test : Registry::instance().tests())
        for (std::string& name : test->spec().metric_names()) declared.push_back(std::move(name));
    given.require_declared(declared);
    return thresholds.overridden_by(given);
}

}  // namespace

int export_run(const ExportOptions& options, std::ostream& out, std::ostream& err) {
    try {
        if (options.output) check_output_target(*options.output);  // refused before the run is read
        const Thresholds thresholds = export_thresholds(options);
        const LoadedRun run = load_run(options.run_dir);
        const Observations observations(run);
        RunDetails details(run);
        // No baseline, topology or profile: those judge nodes and runs, not a metric's level.
        const AnalysisResult result = apply_rules(observations, thresholds, nullptr, nullptr, details);
        const std::vector<TidyRow> rows = tidy_rows(observations, result.judgement, result.judged);
        const std::string text =
            options.format == ExportFormat::csv
                ? tidy_csv(rows)
                : tidy_openmetrics(rows, {run.manifest.run_id, run.manifest.run_uuid, run.manifest.shakedown_version});
        if (options.output) write_file_atomically(*options.output, text);
        else out << text;
        return exit_code::ok;
    } catch (const InputError& error) {
        err << "shakedown-analyze: " << escape_control(error.what()) << '\n';
        return exit_code::bad_input;
    }
}

}  // namespace shakedown::analysis
