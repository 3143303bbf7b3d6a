// The result parameter a test records when it measured on a communicator smaller than the job's
// (one rank per GPU, the ranks that had a GPU), declared once: the tests write it, the analyzer
// counts the ranks a job-wide figure came from by it.
#pragma once

#include <string_view>

namespace shakedown::communicator_names {

inline constexpr std::string_view communicator_ranks = "communicator_ranks";

}  // namespace shakedown::communicator_names
