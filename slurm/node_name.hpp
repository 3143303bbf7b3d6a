// Node names end up in Slurm commands (scontrol, sbatch --nodelist) and in files people
// paste into a shell: only RFC 1123 host names are accepted, so no name can carry quotes,
// spaces, `$` or `;` into a command line.
#pragma once

#include <string_view>

namespace shakedown::slurm {

// Letters, digits and '-' in dot-separated labels of 1..63 characters that neither start nor
// end with '-'; at most 253 characters in all.
bool is_valid_node_name(std::string_view name);

// Throws InputError naming the offending name and `what` it was meant to be (e.g. "node name").
void require_valid_node_name(std::string_view name, std::string_view what = "node name");

}  // namespace shakedown::slurm
