#include "analysis/cli/history_command.hpp"

#include "analysis/history/history_store.hpp"
#include "analysis/history/node_history.hpp"
#include "analysis/history/node_history_report.hpp"
#include "core/errors.hpp"
#include "core/json_text.hpp"
#include "core/printable_text.hpp"

#include <memory>
#include <optional>
#include <string>

namespace shakedown::analysis::cli {
namespace {

struct HistoryArguments {
    std::string file;
    std::string node;
    std::string metric;
    std::string format = "text";
};

}  // namespace

Command add_history_command(CLI::App& app) {
    auto args = std::make_shared<HistoryArguments>();
    CLI::App* history = app.add_subcommand(
        "history", "a node's figures over the runs of a results history (--history FILE) beside each run's fleet "
                   "median, and its health counters run by run (the ones that rose named)");
    history
        ->add_option("FILE", args->file,
                     "the results history (SQLite) that `shakedown-analyze RUN --history FILE` appends to")
        ->required();
    history->add_option("--node", args->node, "the node")->required();
    auto* metric = history->add_option("--metric", args->metric, "only this metric (e.g. dgemm_fp64.tflops)");
    history->add_option("--format", args->format, "text (default), markdown or json")
        ->check(CLI::IsMember({"text", "markdown", "json"}));
    auto run = [args, metric](std::ostream& out, std::ostream& err) {
        try {
            if (args->file.empty()) throw InputError("FILE is empty: give the results history");
            if (args->node.empty()) throw InputError("--node is empty: give a node name");
            if (*metric && args->metric.empty()) throw InputError("--metric is empty: give a metric, or leave --metric out");
            HistoryStore store(args->file, HistoryStore::Access::read);
            const NodeHistory node =
                node_history(store, args->node, *metric ? std::optional<std::string>(args->metric) : std::nullopt);
            if (args->format == "json") out << json_text(node_history_json(node), 2) << '\n';
            else if (args->format == "markdown") out << node_history_markdown(node);
            else out << node_history_text(node);
        } catch (const InputError& error) {
            err << "shakedown-analyze history: " << escape_control(error.what()) << '\n';
            return exit_code::bad_input;
        }
        return exit_code::ok;
    };
    return Command{history, run};
}

}  // namespace shakedown::analysis::cli
