// `shakedown profile --from RUN`: the expected profile of a reference run, as nhc-genconf writes
// a configuration from a good node. Nodes whose hardware is the same form one class (a compact
// hostlist); each class lists what its leader's inventory shows (GPU count and model, memory,
// bus ids, links; RDMA ports; interfaces that are up; CPU; memory) and the tests that ran (not
// waived) on every node of it. A run judged against its own profile passes it.
#pragma once

#include "profile/profile.hpp"

#include <filesystem>

namespace shakedown::profile {

// Throws InputError naming RUN for a folder that is not a run or a trace that cannot be read.
Profile profile_from_run(const std::filesystem::path& run_dir);

}  // namespace shakedown::profile
