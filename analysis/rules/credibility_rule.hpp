// A figure that cannot be physically true is an error, not a result: a transfer between two
// ranks of one node cannot outrun the node's memory (its host STREAM in the same run). Such a
// figure is the measurement's fault (a clock that missed the transfer, a cache measured instead
// of the link): cause software, to fix, never drained and never a pass.
#pragma once

#include "analysis/load/observations.hpp"
#include "analysis/rules/finding.hpp"

#include <vector>

namespace shakedown::analysis {

// The metrics a node's memory bandwidth bounds (the best intra-node link of a rank).
inline constexpr const char* memory_bound_metrics[] = {"allpairs.intra_node_bandwidth_max_gbs",
                                                       "p2p.intra_node_bandwidth_max_gbs"};

std::vector<Finding> credibility_findings(const Observations& observations);

}  // namespace shakedown::analysis
