#include "mpi/congestion/congestion_roles.hpp"

#include "core/errors.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

namespace shakedown::mpi {
namespace {

// Item i of a sequence is picked when floor((i+1) f) passes floor(i f): floor(n f) of n items,
// evenly spread (f 0.5: every second one, starting with the second).
bool picked(int index, double fraction) { return std::floor((index + 1) * fraction) > std::floor(index * fraction); }

}  // namespace

std::string CongestionRoles::describe() const {
    return fmt::format("{} measuring, {} congesting ({})", measuring, congesting,
                       per_node_mix ? "on every node" : "by whole nodes: a node has a single rank");
}

CongestionRoles congestion_roles(const std::vector<comm::RankPlacement>& placement, double congestor_fraction) {
    std::map<int, int> ranks_on_node;
    for (const auto& rank : placement) ++ranks_on_node[rank.node_index];
    CongestionRoles roles;
    roles.per_node_mix =
        std::all_of(ranks_on_node.begin(), ranks_on_node.end(), [](const auto& node) { return node.second >= 2; });
    std::map<int, int> seen_on_node;
    std::map<int, int> node_order;  // node index -> position among the nodes, in rank order
    for (const auto& rank : placement) node_order.emplace(rank.node_index, static_cast<int>(node_order.size()));
    for (const auto& rank : placement) {
        const int local = seen_on_node[rank.node_index]++;
        const bool congests = roles.per_node_mix ? picked(local, congestor_fraction)
                                                 : picked(node_order[rank.node_index], congestor_fraction);
        roles.congests.push_back(congests);
        ++(congests ? roles.congesting : roles.measuring);
    }
    if (roles.measuring < 2 || roles.congesting < 1)
        throw InputError(fmt::format("congestion: congestor_fraction {} of {} ranks on {} nodes leaves {} measuring and {} "
                                     "congesting ranks; it needs at least 2 and 1",
                                     congestor_fraction, placement.size(), ranks_on_node.size(), roles.measuring,
                                     roles.congesting));
    return roles;
}

}  // namespace shakedown::mpi
