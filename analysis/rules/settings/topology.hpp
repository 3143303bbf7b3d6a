// A Slurm topology.conf (topology/tree): which leaf switch each node hangs off. Only leaf lines
// (`SwitchName=leaf1 Nodes=node[01-16]`) matter for naming a slow group; `Switches=` lines
// (the tree above) and other keys (LinkSpeed=) are accepted and ignored.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace shakedown::analysis {

struct LeafSwitch {
    std::string name;
    std::vector<std::string> nodes;
};

class Topology {
public:
    // Throws InputError "SOURCE:LINE: problem" for a line without SwitchName, a bad hostlist, or a
    // switch named twice.
    static Topology parse(std::string_view text, const std::string& source_name);
    static Topology from_file(const std::filesystem::path& path);

    const std::vector<LeafSwitch>& switches() const { return switches_; }
    // The leaf switch of a node (its first, when a file lists a node twice).
    std::optional<std::string> switch_of(const std::string& node) const;

private:
    std::vector<LeafSwitch> switches_;
    std::map<std::string, std::string> switch_of_node_;
};

}  // namespace shakedown::analysis
