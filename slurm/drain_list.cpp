#include "slurm/drain_list.hpp"

#include "core/process_runner.hpp"
#include "hostlist/node_name.hpp"

#include <fmt/format.h>

#include <map>

namespace shakedown::slurm {
namespace {

constexpr std::string_view reason_prefix = "shakedown: ";

bool is_shell_special_in_double_quotes(char c) { return c == '$' || c == '`' || c == '\\' || c == '!'; }

}  // namespace

std::string clean_drain_reason(std::string_view reason) {
    std::string cleaned;
    bool pending_space = false;
    for (const char raw : reason) {
        const auto c = static_cast<unsigned char>(raw);
        if (c < 0x20 || c == 0x7f || c == ' ') {
            pending_space = !cleaned.empty();
            continue;
        }
        if (pending_space) cleaned += ' ';
        pending_space = false;
        if (c >= 0x80)
            cleaned += '?';
        else if (raw == '"')
            cleaned += '\'';
        else if (is_shell_special_in_double_quotes(raw))
            cleaned += '_';
        else
            cleaned += raw;
    }
    if (cleaned.rfind(reason_prefix, 0) != 0) {
        // "shakedown:" already there but without the space counts as present too.
        if (cleaned.rfind("shakedown:", 0) == 0) cleaned.insert(std::string("shakedown:").size(), " ");
        else cleaned.insert(0, reason_prefix);
    }
    while (!cleaned.empty() && cleaned.back() == ' ') cleaned.pop_back();
    if (cleaned.size() <= reason_prefix.size()) cleaned = std::string(reason_prefix) + "failed";
    if (cleaned.size() > max_drain_reason_length) cleaned = cleaned.substr(0, max_drain_reason_length - 3) + "...";
    return cleaned;
}

DrainCommand make_drain_command(const DrainRequest& request, std::string_view scontrol) {
    require_valid_node_name(request.node, "node name for drain");
    DrainCommand command;
    command.node = request.node;
    command.reason = clean_drain_reason(request.reason);
    command.argv = {std::string(scontrol), "update", "NodeName=" + request.node, "State=DRAIN",
                    "Reason=" + command.reason};
    command.line = fmt::format("{} update NodeName={} State=DRAIN Reason=\"{}\"", scontrol, request.node, command.reason);
    return command;
}

std::vector<DrainCommand> make_drain_commands(const std::vector<DrainRequest>& requests, std::string_view scontrol) {
    std::vector<std::string> order;
    std::map<std::string, std::string> reasons;
    for (const auto& request : requests) {
        require_valid_node_name(request.node, "node name for drain");
        auto [entry, inserted] = reasons.try_emplace(request.node, request.reason);
        if (inserted)
            order.push_back(request.node);
        else if (!request.reason.empty())
            entry->second += "; " + request.reason;
    }
    std::vector<DrainCommand> commands;
    for (const auto& node : order) commands.push_back(make_drain_command({node, reasons[node]}, scontrol));
    return commands;
}

std::string format_drain_file(const std::vector<DrainRequest>& requests, std::string_view run_id) {
    const auto commands = make_drain_commands(requests);
    std::string printable_run_id;  // a run id from a foreign file must not end the comment line
    for (const char c : run_id) printable_run_id += static_cast<unsigned char>(c) < 0x20 ? '?' : c;
    std::string text = fmt::format(
        "# shakedown drain list for run {}: one scontrol command per failed node.\n"
        "# Nothing here has been run. Review, then run the lines (or shakedown-analyze with its drain flag).\n",
        printable_run_id);
    if (commands.empty()) text += "# No node needs draining.\n";
    for (const auto& command : commands) text += command.line + '\n';
    return text;
}

std::vector<DrainOutcome> apply_drain_list(const std::vector<DrainRequest>& requests, std::string_view scontrol) {
    std::vector<DrainOutcome> outcomes;
    for (const auto& command : make_drain_commands(requests, scontrol)) {
        const auto result = run_process(command.argv);
        std::string message = result.err.empty() ? result.out : result.err;
        while (!message.empty() && (message.back() == '\n' || message.back() == ' ')) message.pop_back();
        if (result.timed_out) message = "timed out";
        outcomes.push_back({command.node, result.exit_code, message});
    }
    return outcomes;
}

}  // namespace shakedown::slurm
