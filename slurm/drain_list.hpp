// drain.txt: one `scontrol update NodeName=... State=DRAIN Reason="shakedown: ..."` line per
// failed node, for the administrator to read and run. Node names are validated, reasons are
// cleaned so that the line means the same to scontrol and to any shell it is pasted into, and
// nothing is executed unless apply_drain_list() is called (the analyzer's explicit flag).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace shakedown::slurm {

struct DrainRequest {
    std::string node;    // a host name (validated)
    std::string reason;  // free text from the analyzer's verdict (cleaned)
};

// One node's drain command, both as an argv array (for exec) and as the line for drain.txt.
struct DrainCommand {
    std::string node;
    std::string reason;              // cleaned, starts with "shakedown: "
    std::vector<std::string> argv;   // {"scontrol", "update", "NodeName=..", "State=DRAIN", "Reason=.."}
    std::string line;                // scontrol update NodeName=.. State=DRAIN Reason=".."
};

// Longest reason kept (Slurm stores reasons in a fixed-size column on some sites' tooling).
inline constexpr std::size_t max_drain_reason_length = 200;

// The reason as it will be stored: "shakedown: " prepended unless present; control characters
// and runs of white space become one space; characters a shell would treat specially inside
// double quotes (" $ ` \ !) are replaced (" by ', the others by _); non-ASCII bytes become '?';
// cut to max_drain_reason_length with "...". Never empty: "shakedown: failed" at least.
std::string clean_drain_reason(std::string_view reason);

// Throws InputError for a node name that is not a host name.
DrainCommand make_drain_command(const DrainRequest& request, std::string_view scontrol = "scontrol");

// One command per node in the order of first appearance; several reasons for one node are
// joined with "; " before cleaning. Throws InputError if any node name is invalid.
std::vector<DrainCommand> make_drain_commands(const std::vector<DrainRequest>& requests,
                                              std::string_view scontrol = "scontrol");

// The text of drain.txt: a comment header (what it is, that nothing was run), then one line
// per node. An empty request list gives a header saying no node needs draining.
std::string format_drain_file(const std::vector<DrainRequest>& requests, std::string_view run_id);

struct DrainOutcome {
    std::string node;
    int exit_code = -1;
    std::string message;  // scontrol's output or the reason it could not run
};

// Executes each command with its argv (no shell). Only for an explicit user request.
std::vector<DrainOutcome> apply_drain_list(const std::vector<DrainRequest>& requests,
                                           std::string_view scontrol = "scontrol");

}  // namespace shakedown::slurm
