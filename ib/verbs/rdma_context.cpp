#include "ib/verbs/rdma_context.hpp"

#include "ib/verbs/endpoint_selection.hpp"
#include "inventory/inventory_sections.hpp"

#include <nlohmann/json.hpp>

namespace shakedown::ib {

comm::PairRounds rdma_pair_rounds(const RunContext& ctx, const std::vector<comm::RankPlacement>& placement,
                                  bool allow_intra_node) {
    auto rounds = comm::pairs_or_default(ctx.params(), placement, ctx.session().world_size(), comm::local_then_ring_rounds);
    if (!allow_intra_node)
        for (auto& round : rounds) std::erase_if(round, [](const comm::RankPair& pair) { return pair.intra_node; });
    std::erase_if(rounds, [](const auto& round) { return round.empty(); });
    return rounds;
}

comm::PairSweep rdma_pair_sweep(const RunContext& ctx) {
    const bool allow_intra_node = ctx.params().flag("allow_intra_node");
    return comm::PairSweep(ctx.comm(), ctx.session(), [&](const std::vector<comm::RankPlacement>& placement) {
        return rdma_pair_rounds(ctx, placement, allow_intra_node);
    });
}

RdmaEndpoint resolve_rdma_endpoint(const VerbsApi& api, const RunContext& ctx) {
    RdmaEndpoint endpoint{resolve_endpoint(api, endpoint_request(ctx.params()), preferred_numa_node_for(ctx)), std::nullopt};
    endpoint.nominal_gbps =
        inventory_detail::ib_rate_gbps(endpoint.choice.port_info.speed_code, endpoint.choice.port_info.width_code);
    return endpoint;
}

int preferred_numa_node_for(const RunContext& ctx) {
    std::optional<std::string> bus_id;
    const auto gpu = ctx.session().gpu();
    if (gpu && ctx.inventory().contains("gpus"))
        for (const auto& entry : ctx.inventory()["gpus"])
            if (entry.value("index", -1) == *gpu) bus_id = entry.value("pci_bus_id", std::string());
    return preferred_numa_node(bus_id);
}

}  // namespace shakedown::ib
