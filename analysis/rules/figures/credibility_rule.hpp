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

#include <vector>

namespace shakedown::analysis {

// Which figures each bound holds is the tests' declaration (MetricSpec::bound, core/test_spec.hpp).
// Timing error allowed above the line rate before a figure is called impossible.
inline constexpr double network_bound_tolerance = 1.05;
// The same for a figure its declaration bounds by its nominal (PhysicalBound::nominal: cg_fp64's
// and stencil3d's fractions of the bandwidth bound measured in the same test, a TCP line rate).
inline constexpr double declared_bound_tolerance = 1.05;

std::vector<Finding> credibility_findings(const Observations& observations);

}  // namespace shakedown::analysis
