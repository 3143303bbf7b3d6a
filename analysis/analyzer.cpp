#include "analysis/analyzer.hpp"

#include "analysis/judgement.hpp"
#include "analysis/run_loader.hpp"
#include "analysis/summary_json.hpp"
#include "analysis/terminal_report.hpp"
#include "analysis/thresholds.hpp"
#include "core/clock.hpp"
#include "core/errors.hpp"

namespace shakedown::analysis {
namespace {

Thresholds resolve_thresholds(const AnalyzeOptions& options) {
    Thresholds thresholds = Thresholds::built_in();
    if (options.thresholds_file) thresholds = thresholds.overridden_by(Thresholds::from_file(*options.thresholds_file));
    return thresholds;
}

}  // namespace

int analyze(const AnalyzeOptions& options, std::ostream& out, std::ostream& err) {
    LoadedRun run;
    Thresholds thresholds;
    try {
        // Thresholds first: a typo in them should not cost the time of loading 4096 traces.
        thresholds = resolve_thresholds(options);
        run = load_run(options.run_dir);
    } catch (const InputError& error) {
        err << "shakedown-analyze: " << error.what() << '\n';
        return exit_code::bad_input;
    }

    const Judgement judgement = judge_run(run, thresholds);
    const std::filesystem::path summary_path = options.summary_path.value_or(run.dir / "summary.json");
    const SummaryContext context{.thresholds_source = thresholds.source(), .analyzed_utc = now_utc()};
    try {
        write_file_atomically(summary_path, summary_to_json(run, judgement, context).dump(2) + "\n");
    } catch (const InputError& error) {
        print_terminal_report(out, run, judgement, {}, {.quiet = options.quiet});
        err << "shakedown-analyze: " << error.what() << '\n';
        return exit_code::bad_input;
    }
    print_terminal_report(out, run, judgement, summary_path, {.quiet = options.quiet});
    return judgement.exit_code();
}

}  // namespace shakedown::analysis
