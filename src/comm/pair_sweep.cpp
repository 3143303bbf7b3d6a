#include "comm/pair_sweep.hpp"

#include <fmt/format.h>

namespace shakedown::comm {

std::string PairTurn::label() const { return fmt::format("ranks {}-{}", first_world, second_world); }

namespace {

// Every other rank of `comm`, in world ranks: who a collective over it waits for.
std::vector<int> other_world_ranks(MPI_Comm comm, MPI_Comm world) {
    MPI_Group group = MPI_GROUP_NULL, world_group = MPI_GROUP_NULL;
    MPI_Comm_group(comm, &group);
    MPI_Comm_group(world, &world_group);
    int size = 0, me = 0;
    MPI_Comm_size(comm, &size);
    MPI_Comm_rank(comm, &me);
    std::vector<int> ranks(static_cast<std::size_t>(size)), in_world(static_cast<std::size_t>(size));
    for (int r = 0; r < size; ++r) ranks[static_cast<std::size_t>(r)] = r;
    MPI_Group_translate_ranks(group, size, ranks.data(), world_group, in_world.data());
    MPI_Group_free(&group);
    MPI_Group_free(&world_group);
    in_world.erase(in_world.begin() + me);
    return in_world;
}

std::vector<RankPlacement> gather_reporting(MPI_Comm comm, const Session& session) {
    session.activity().set_phase("gathering where every rank runs", other_world_ranks(comm, session.world()));
    return gather_placement(comm, session);
}

}  // namespace

PairSweep::PairSweep(MPI_Comm comm, const Session& session, const ChooseRounds& choose)
    : comm_(comm), activity_(session.activity()), placement_(gather_reporting(comm, session)), rounds_(choose(placement_)) {
    activity_.set_phase({});
}

void PairSweep::for_each_turn(const std::function<void(const PairTurn&)>& measure) const {
    int me = 0;
    MPI_Comm_rank(comm_, &me);
    const std::size_t count = rounds_.size();
    for (std::size_t index = 0; index < count; ++index) {
        const auto& round = rounds_[index];
        if (const auto role = role_in(round, me)) {
            const PairTurn turn{role->pair,
                                role->peer,
                                role->initiator,
                                placement_[role->pair.first].world_rank,
                                placement_[role->pair.second].world_rank,
                                placement_[role->peer].world_rank};
            activity_.set_phase(fmt::format("round {} of {}: {}", index + 1, count, turn.label()), {turn.peer_world});
            measure(turn);
        }
        activity_.set_phase(fmt::format("barrier after round {} of {}", index + 1, count));
        MPI_Barrier(comm_);  // rounds never overlap
    }
    activity_.set_phase({});
}

}  // namespace shakedown::comm
