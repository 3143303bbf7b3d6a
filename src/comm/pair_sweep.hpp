// The loop every pair test shares: gather where every rank lives, choose the rounds of disjoint
// pairs, then run one measurement per pair this rank is part of, rounds one after another with a
// barrier between them so no rank is ever in two measurements at a time (as OSU runs one pair at
// a time). A test supplies only the measurement of one pair.
#pragma once

#include "comm/pairs.hpp"
#include "core/session.hpp"

#include <mpi.h>

#include <functional>
#include <string>
#include <vector>

namespace shakedown::comm {

// One pair this rank measures in one round, with the world ranks every message and sample names.
struct PairTurn {
    RankPair pair;
    int peer = 0;  // in the test's communicator
    bool initiator = false;
    int first_world = 0;
    int second_world = 0;
    int peer_world = 0;

    bool intra_node() const { return pair.intra_node; }
    int world_of(int comm_rank) const { return comm_rank == pair.first ? first_world : second_world; }  // a pair member
    std::string label() const;  // "ranks 0-1"
};

class PairSweep {
public:
    using ChooseRounds = std::function<PairRounds(const std::vector<RankPlacement>&)>;

    // Collective over `comm`: gathers the placement, then the rounds `choose` picks from it.
    PairSweep(MPI_Comm comm, const Session& session, const ChooseRounds& choose);

    const std::vector<RankPlacement>& placement() const { return placement_; }
    const PairRounds& rounds() const { return rounds_; }
    bool empty() const { return rounds_.empty(); }
    std::string description() const { return describe_rounds(rounds_, placement_); }  // the trace's "pairs_run"

    // Collective over `comm`: `measure` for every round this rank takes part in, then a barrier
    // after every round (also on ranks that sit it out).
    void for_each_turn(const std::function<void(const PairTurn&)>& measure) const;

private:
    MPI_Comm comm_;
    Activity& activity_;
    std::vector<RankPlacement> placement_;
    PairRounds rounds_;
};

}  // namespace shakedown::comm
