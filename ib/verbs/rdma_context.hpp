// What the verbs tests take from the run context in the same way: the rank pairs (different
// nodes unless allowed otherwise), the endpoint with its port's nominal rate, and the NUMA node
// to pick an HCA near.
#pragma once

#include "comm/pair_sweep.hpp"
#include "comm/pairs.hpp"
#include "core/run_context.hpp"
#include "ib/verbs/endpoint_selection.hpp"
#include "ib/verbs/verbs_api.hpp"

#include <optional>

#include <string>
#include <vector>

namespace shakedown::ib {

// The parameter `pairs`, else node-local pairs and node neighbours in a ring; intra-node pairs are
// dropped unless `allow_intra_node`. Empty rounds are removed. Collective over ctx.comm().
comm::PairRounds rdma_pair_rounds(const RunContext& ctx, const std::vector<comm::RankPlacement>& placement,
                                  bool allow_intra_node);

// rdma_pair_rounds over the test's ranks, with the parameter `allow_intra_node` (collective).
comm::PairSweep rdma_pair_sweep(const RunContext& ctx);

// Why a verbs pair test is waived when rdma_pair_sweep found no pair.
inline constexpr const char* no_inter_node_pair =
    "no pair of ranks on different nodes (set allow_intra_node to pair ranks of one node)";

// The endpoint the parameters ask for (near this rank's GPU or CPU) and its port's rate in Gb/s
// from the IBTA speed and width codes (nothing for codes the table does not know).
struct RdmaEndpoint {
    EndpointChoice choice;
    std::optional<double> nominal_gbps;
};
RdmaEndpoint resolve_rdma_endpoint(const VerbsApi& api, const RunContext& ctx);

// NUMA node of this rank's GPU (inventory pci_bus_id), else of the CPU it runs on; -1 if unknown.
int preferred_numa_node_for(const RunContext& ctx);

}  // namespace shakedown::ib
