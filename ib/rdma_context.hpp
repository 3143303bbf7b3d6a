// What the verbs tests take from the run context in the same way: the rank pairs (different
// nodes unless allowed otherwise) and the NUMA node to pick an HCA near.
#pragma once

#include "core/run_context.hpp"
#include "comm/pairs.hpp"

#include <string>
#include <vector>

namespace shakedown::ib {

// The parameter `pairs`, else node-local pairs and node neighbours in a ring; intra-node pairs are
// dropped unless `allow_intra_node`. Empty rounds are removed. Collective over ctx.comm().
comm::PairRounds rdma_pair_rounds(const RunContext& ctx, const std::vector<comm::RankPlacement>& placement,
                                 bool allow_intra_node);

// NUMA node of this rank's GPU (inventory pci_bus_id), else of the CPU it runs on; -1 if unknown.
int preferred_numa_node_for(const RunContext& ctx);

}  // namespace shakedown::ib
