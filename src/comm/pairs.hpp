// Which ranks talk to which: the node-local pair, node representatives in a ring, or the
// pairs a user names. Pairs are packed into rounds of disjoint pairs; a round's pairs run at
// once, rounds run one after another, so no rank is ever in two measurements at a time.
#pragma once

#include "core/params.hpp"
#include "core/session.hpp"

#include <mpi.h>

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace shakedown::comm {

// Where each rank of a test's communicator lives, gathered once (collective).
struct RankPlacement {
    int world_rank = 0;
    int node_index = 0;
};
std::vector<RankPlacement> gather_placement(MPI_Comm comm, const Session& session);

struct RankPair {
    int first = 0;   // ranks in the test's communicator; `first` initiates
    int second = 0;
    bool intra_node = false;
};
using PairRounds = std::vector<std::vector<RankPair>>;

// Greedy packing: each pair goes into the first round where neither rank is busy.
PairRounds pack_into_rounds(const std::vector<RankPair>& pairs);

// Every unordered pair of `members` ranks once, in rounds where each rank is in at most one pair
// (the circle method: members - 1 rounds for an even count, members for an odd one, where each
// rank sits one round out). `first` is the lower rank of each pair.
PairRounds every_pair_rounds(int members);

// The two lowest ranks of every node that has two (all nodes at once), then each node's
// lowest rank with the next node's in a ring (packed into two or three rounds).
PairRounds local_then_ring_rounds(const std::vector<RankPlacement>& placement);

// ["0-1", "2-3"] in world ranks -> pairs in the communicator's ranks, one per round (pairs a user
// names are measured alone). Throws InputError for malformed text, unknown or repeated ranks.
PairRounds parse_pair_list(const std::vector<std::string>& pairs, const std::vector<RankPlacement>& placement,
                           int world_size);

// Every rank of a world of `world_size` on a node of its own: what check_parameters judges
// named pairs against before the ranks' nodes are known.
std::vector<RankPlacement> every_rank_apart(int world_size);

// The declared parameter `pairs`: the named pairs, or (auto) what `default_rounds` picks.
ParamSpec pairs_parameter(const std::string& automatic_pairs);
PairRounds pairs_or_default(const TestParams& params, const std::vector<RankPlacement>& placement, int world_size,
                            const std::function<PairRounds(const std::vector<RankPlacement>&)>& default_rounds);

// "0-1 (intra-node), 1-2 (inter-node)" in world ranks, for the trace's parameters.
std::string describe_rounds(const PairRounds& rounds, const std::vector<RankPlacement>& placement);

// This rank's pair in a round and whether it initiates; nothing when it sits the round out.
struct MyRole {
    RankPair pair;
    int peer = 0;
    bool initiator = false;
};
std::optional<MyRole> role_in(const std::vector<RankPair>& round, int my_rank);

}  // namespace shakedown::comm
