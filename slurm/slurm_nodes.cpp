#include "slurm/slurm_nodes.hpp"

#include "core/printable_text.hpp"
#include "hostlist/node_name.hpp"

#include <algorithm>
#include <array>
#include <fstream>
#include <sstream>

namespace shakedown::slurm {
namespace {

std::string_view trim(std::string_view text) {
    const auto first = text.find_first_not_of(" \t\r");
    if (first == std::string_view::npos) return {};
    const auto last = text.find_last_not_of(" \t\r");
    return text.substr(first, last - first + 1);
}

// sinfo appends these to a state for flags (not responding, powered off, maintenance, ...).
constexpr std::string_view state_flag_characters = "*~#!%$@^-";

constexpr std::array<std::string_view, 7> unusable_state_words = {"down",  "drain",   "drained", "draining",
                                                                  "fail",  "failing", "inval"};

}  // namespace

SlurmNodesRecord parse_slurm_nodes(std::string_view text) {
    SlurmNodesRecord record;
    std::istringstream lines{std::string(text)};
    for (std::string raw; std::getline(lines, raw);) {
        const auto line = trim(raw);
        if (line.empty()) continue;
        if (line.front() == '#') {
            record.comments.emplace_back(trim(line.substr(1)));
            continue;
        }
        std::istringstream words{std::string(line)};
        SlurmNodeState entry;
        if (!(words >> entry.node >> entry.state) || !is_valid_node_name(entry.node)) continue;
        std::getline(words, entry.reason);
        entry.reason = std::string(trim(entry.reason));
        if (entry.reason == "none") entry.reason.clear();  // sinfo's word for no reason
        record.nodes.push_back(std::move(entry));
    }
    return record;
}

std::optional<SlurmNodesRecord> read_slurm_nodes(const std::filesystem::path& run_folder) {
    // Only a regular file of a sane size: a FIFO in its place would block the analyzer for ever,
    // /dev/zero never end (the job script writes a few lines per node).
    constexpr std::uintmax_t most_bytes = std::uintmax_t{64} << 20;
    const auto path = run_folder / slurm_nodes_file_name;
    std::error_code error;
    if (!std::filesystem::is_regular_file(path, error) || std::filesystem::file_size(path, error) > most_bytes || error)
        return std::nullopt;
    std::ifstream in(path);
    if (!in) return std::nullopt;
    std::ostringstream text;
    text << in.rdbuf();
    if (in.bad()) return std::nullopt;
    return parse_slurm_nodes(text.str());
}

bool is_unusable_node_state(std::string_view state) {
    if (state.find('*') != std::string_view::npos) return true;  // not responding
    const auto words = ascii_lower(state);
    std::size_t start = 0;
    while (start <= words.size()) {
        const auto end = std::min(words.find('+', start), words.size());
        auto word = std::string_view(words).substr(start, end - start);
        while (!word.empty() && state_flag_characters.find(word.back()) != std::string_view::npos) word.remove_suffix(1);
        if (std::find(unusable_state_words.begin(), unusable_state_words.end(), word) != unusable_state_words.end())
            return true;
        start = end + 1;
    }
    return false;
}

std::vector<SlurmNodeState> unusable_nodes(const SlurmNodesRecord& record) {
    std::vector<SlurmNodeState> unusable;
    std::copy_if(record.nodes.begin(), record.nodes.end(), std::back_inserter(unusable),
                 [](const SlurmNodeState& node) { return is_unusable_node_state(node.state); });
    return unusable;
}

}  // namespace shakedown::slurm
