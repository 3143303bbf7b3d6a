#include "analysis/rules/settings/topology.hpp"

#include "core/errors.hpp"
#include "core/input_file.hpp"
#include "core/input_limits.hpp"
#include "core/printable_text.hpp"
#include "hostlist/hostlist.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <sstream>

namespace shakedown::analysis {
namespace {}  // namespace

Topology Topology::parse(std::string_view text, const std::string& source_name) {
    Topology topology;
    std::size_t names_left = slurm::max_hostlist_names;  // for the whole file, not per line
    std::istringstream lines{std::string(text)};
    std::string line;
    int line_number = 0;
    while (std::getline(lines, line)) {
        ++line_number;
        if (auto comment = line.find('#'); comment != std::string::npos) line.erase(comment);
        std::istringstream words(line);
        std::string word;
        std::optional<std::string> switch_name;
        std::optional<std::string> nodes;
        bool any = false;
        while (words >> word) {
            any = true;
            const auto equals = word.find('=');
            if (equals == std::string::npos || equals == 0)
                throw InputError(fmt::format("{}:{}: expected Key=Value, got '{}'", source_name, line_number, word));
            const std::string key = ascii_lower(word.substr(0, equals));
            const std::string value = word.substr(equals + 1);
            if (key == "switchname") switch_name = value;
            else if (key == "nodes") nodes = value;
        }
        if (!any) continue;
        if (!switch_name || switch_name->empty())
            throw InputError(fmt::format("{}:{}: a line without SwitchName=", source_name, line_number));
        const bool known = std::any_of(topology.switches_.begin(), topology.switches_.end(),
                                       [&](const LeafSwitch& leaf) { return leaf.name == *switch_name; });
        if (known)
            throw InputError(fmt::format("{}:{}: switch '{}' is named twice", source_name, line_number, *switch_name));
        if (!nodes) continue;  // a switch of switches
        LeafSwitch leaf{*switch_name, {}};
        try {
            leaf.nodes = slurm::expand_hostlist(*nodes, names_left);
        } catch (const InputError& error) {
            throw InputError(fmt::format("{}:{}: Nodes={}: {}", source_name, line_number, *nodes, error.what()));
        }
        for (const std::string& node : leaf.nodes) topology.switch_of_node_.emplace(node, leaf.name);
        topology.switches_.push_back(std::move(leaf));
    }
    return topology;
}

Topology Topology::from_file(const std::filesystem::path& path) {
    return parse(read_input_file(path, input_limits::max_text_file_bytes,
                                 fmt::format("{}: cannot read the topology file: ", path.string())),
                 path.string());
}

std::optional<std::string> Topology::switch_of(const std::string& node) const {
    auto found = switch_of_node_.find(node);
    if (found == switch_of_node_.end()) return std::nullopt;
    return found->second;
}

}  // namespace shakedown::analysis
