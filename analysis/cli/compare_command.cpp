#include "analysis/cli/compare_command.hpp"

#include "analysis/history/comparison_report.hpp"
#include "analysis/history/run_comparison.hpp"
#include "analysis/rules/settings/thresholds.hpp"
#include "core/errors.hpp"
#include "core/json_text.hpp"
#include "core/printable_text.hpp"

#include <fmt/format.h>

#include <cmath>
#include <memory>
#include <string>

namespace shakedown::analysis::cli {
namespace {

struct CompareArguments {
    std::string old_dir;
    std::string new_dir;
    std::string format = "text";
    double tolerance = 0.0;
};

RunRecord read_side(const std::string& dir, const char* which) {
    if (dir.empty()) throw InputError(fmt::format("{} is empty: give a run folder", which));
    try {
        return read_run_record(dir);
    } catch (const InputError& error) {
        throw InputError(fmt::format("{}: {}", which, error.what()));
    }
}

}  // namespace

Command add_compare_command(CLI::App& app, std::function<Thresholds()> thresholds) {
    auto args = std::make_shared<CompareArguments>();
    CLI::App* compare = app.add_subcommand(
        "compare", "each node's figure of each metric (median over its ranks) and health counters of run NEW against "
                   "run OLD: delta, ratio, worse/better beyond the tolerance, new, missing, counters that rose");
    compare->add_option("OLD", args->old_dir, "the earlier run folder")->required();
    compare->add_option("NEW", args->new_dir, "the later run folder")->required();
    compare->add_option("--format", args->format, "text (default), markdown or json")
        ->check(CLI::IsMember({"text", "markdown", "json"}));
    auto* tolerance = compare->add_option("--tolerance", args->tolerance,
                                          "a change beyond this fraction of OLD's figure is worse or better "
                                          "(default: the built-in thresholds' baseline tolerance)");
    auto run = [args, tolerance, thresholds = std::move(thresholds)](std::ostream& out, std::ostream& err) {
        try {
            if (*tolerance && !(args->tolerance >= 0.0 && std::isfinite(args->tolerance)))
                throw InputError(fmt::format("--tolerance must be a finite fraction >= 0, got {}", args->tolerance));
            // The same tolerance --baseline uses, so both call the same change a regression.
            if (!*tolerance) args->tolerance = thresholds().settings().tolerance();
            const RunRecord old_run = read_side(args->old_dir, "OLD");
            const RunRecord new_run = read_side(args->new_dir, "NEW");
            const RunComparison comparison = compare_runs(old_run, new_run, args->tolerance);
            if (args->format == "json") out << json_text(comparison_json(comparison), 2) << '\n';
            else if (args->format == "markdown") out << comparison_markdown(comparison);
            else out << comparison_text(comparison);
        } catch (const InputError& error) {
            err << "shakedown-analyze compare: " << escape_control(error.what()) << '\n';
            return exit_code::bad_input;
        }
        return exit_code::ok;
    };
    return Command{compare, run};
}

}  // namespace shakedown::analysis::cli
