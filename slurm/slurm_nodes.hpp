// slurm_nodes.txt: Slurm's view of a job's nodes, written by the job script into the run folder
// after the run step and before the analysis (format in docs/slurm.md), so that a node Slurm
// marked down while the job ran can be named as the culprit, not only the ranks it left missing.
// Reading it never fails a run: the file is best effort, and a line it cannot read is skipped.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace shakedown::slurm {

inline constexpr std::string_view slurm_nodes_file_name = "slurm_nodes.txt";

struct SlurmNodeState {
    std::string node;    // a valid Slurm node name
    std::string state;   // sinfo's %T as written: "allocated", "down*", "idle+drain", ...
    std::string reason;  // sinfo's %E; empty when Slurm has none ("none")
};

struct SlurmNodesRecord {
    std::vector<SlurmNodeState> nodes;  // one per node, in the file's order
    std::vector<std::string> comments;  // the '#' lines without "# " (header, "sinfo failed ...")
};

// Lines "NODE STATE REASON..." (the reason is the rest of the line); '#' lines are comments.
// Lines with fewer than two words or an invalid node name are skipped.
SlurmNodesRecord parse_slurm_nodes(std::string_view text);

// RUN_FOLDER/slurm_nodes.txt; nullopt when there is none (not a Slurm job, an older script) or
// it cannot be read.
std::optional<SlurmNodesRecord> read_slurm_nodes(const std::filesystem::path& run_folder);

// Whether Slurm holds a node in this state unusable: any '+'-joined word of it, without its
// trailing flag characters (* ~ # ! % $ @ ^ -), is down, drain, drained, draining, fail, failing
// or inval, or the state carries '*' (not responding). Case does not matter.
bool is_unusable_node_state(std::string_view state);

// The nodes of the record in such a state, in the file's order.
std::vector<SlurmNodeState> unusable_nodes(const SlurmNodesRecord& record);

}  // namespace shakedown::slurm
