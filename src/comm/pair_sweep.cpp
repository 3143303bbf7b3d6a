#include "comm/pair_sweep.hpp"

#include <fmt/format.h>

namespace shakedown::comm {

std::string PairTurn::label() const { return fmt::format("ranks {}-{}", first_world, second_world); }

PairSweep::PairSweep(MPI_Comm comm, const Session& session, const ChooseRounds& choose)
    : comm_(comm), placement_(gather_placement(comm, session)), rounds_(choose(placement_)) {}

void PairSweep::for_each_turn(const std::function<void(const PairTurn&)>& measure) const {
    int me = 0;
    MPI_Comm_rank(comm_, &me);
    for (const auto& round : rounds_) {
        if (const auto role = role_in(round, me)) {
            const PairTurn turn{role->pair,
                                role->peer,
                                role->initiator,
                                placement_[role->pair.first].world_rank,
                                placement_[role->pair.second].world_rank,
                                placement_[role->peer].world_rank};
            measure(turn);
        }
        MPI_Barrier(comm_);  // rounds never overlap
    }
}

}  // namespace shakedown::comm
