// A figure that cannot be physically true is an error, not a result: a transfer between two
// ranks of one node cannot outrun the node's memory (its host STREAM in the same run), one
// between two nodes cannot outrun the node's network (its physical NICs' and RDMA ports' line
// rates, recorded by the test as the figure's nominal: hardware/network_capacity.hpp), and no
// figure its declaration bounds by its nominal passes it (a kernel faster than the memory
// bandwidth its data must cross: the bound was measured at another size, or the working set
// stayed in cache). Such a
// figure is the measurement's fault (a clock that missed the transfer, a cache measured instead
// of the link): cause software, to fix, never drained and never a pass.
#pragma once

#include "analysis/load/observations.hpp"
#include "analysis/rules/model/finding.hpp"
#include "mpi/allpairs_names.hpp"
#include "mpi/p2p_names.hpp"

#include <array>
#include <string_view>
#include <vector>

namespace shakedown::analysis {

// The metrics a node's memory bandwidth bounds (the best intra-node link of a rank).
inline constexpr std::array<std::string_view, 2> memory_bound_metrics = {mpi::allpairs_names::intra_node_bandwidth_max_gbs,
                                                                         mpi::p2p_names::intra_node_bandwidth_max_gbs};

// The metrics whose nominal is the node's network capacity (the best inter-node link of a rank).
inline constexpr std::array<std::string_view, 2> network_bound_metrics = {mpi::allpairs_names::inter_node_bandwidth_max_gbs,
                                                                          mpi::p2p_names::inter_node_bandwidth_max_gbs};
// Timing error allowed above the line rate before a figure is called impossible.
inline constexpr double network_bound_tolerance = 1.05;
// The same for a figure its declaration bounds by its nominal (MetricSpec::bounded_by_nominal:
// cg_fp64's and stencil3d's fractions of the bandwidth bound measured in the same test).
inline constexpr double declared_bound_tolerance = 1.05;

std::vector<Finding> credibility_findings(const Observations& observations);

}  // namespace shakedown::analysis
