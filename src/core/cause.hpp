// Who must act on a result that is not a pass. Only the hardware's faults put a node on the
// drain list; a configuration fault (a value this node cannot honour, a binary without code for
// its GPU) or a software fault (a library error) fails the run with what to fix instead.
#pragma once

#include <optional>
#include <string_view>

namespace shakedown {

enum class Cause {
    hardware,       // a measured shortfall, a wrong answer, a missing device, an error counter
    configuration,  // bad input the run could only detect on the node, the build or the launch
    software,       // a library or shakedown error
};

std::string_view to_string(Cause cause);  // "hardware", "configuration", "software"
std::optional<Cause> cause_from_string(std::string_view text);

}  // namespace shakedown
