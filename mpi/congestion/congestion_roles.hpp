// Which ranks of the congestion test measure and which congest. Where every node has at least
// two ranks, each node gets both (the congestor_fraction of its ranks congest, spread over its
// local ranks): every node's network interface then carries congestor traffic while its own
// ranks measure, so a node whose links degrade under load is seen from its own measurements.
// Where some node has a single rank that cannot be split, whole nodes are picked instead (the
// fraction of the nodes, spread over the node order), and the measuring nodes' links see the
// congesting nodes' traffic in the fabric.
#pragma once

#include "comm/pairs.hpp"

#include <string>
#include <vector>

namespace shakedown::mpi {

struct CongestionRoles {
    std::vector<bool> congests;  // per rank of the test's communicator
    bool per_node_mix = false;   // true: each node has both kinds; false: node halves
    int measuring = 0;
    int congesting = 0;
    std::string describe() const;  // for the trace's parameters
};

// Throws InputError when the fraction leaves fewer than two measuring ranks or no congestor.
CongestionRoles congestion_roles(const std::vector<comm::RankPlacement>& placement, double congestor_fraction);

}  // namespace shakedown::mpi
