// Node names end up in Slurm commands (scontrol, sbatch --nodelist) and in files people
// paste into a shell: every name Slurm accepts (letters, digits, '-', '_', '.') and nothing else,
// so no name can carry quotes, spaces, `=`, `$` or `;` into a command line, and none starts with
// '-' (an option) or '.'.
#pragma once

#include <string_view>

namespace shakedown::slurm {

// What Slurm accepts in a NodeName: letters, digits, '-', '_' and '.'.
bool is_node_name_character(char c);

// 1..253 of letters, digits, '-', '_' and '.', not starting with '-' or '.'.
bool is_valid_node_name(std::string_view name);

// Throws InputError naming the offending name and `what` it was meant to be (e.g. "node name").
void require_valid_node_name(std::string_view name, std::string_view what = "node name");

}  // namespace shakedown::slurm
