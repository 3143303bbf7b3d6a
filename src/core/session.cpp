#include "core/session.hpp"

#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <vector>

namespace shakedown {

std::string this_node_name() {
    if (const char* slurm = std::getenv("SLURMD_NODENAME"); slurm != nullptr && *slurm != '\0') return slurm;
    char name[HOST_NAME_MAX + 1] = {};
    if (gethostname(name, sizeof name) != 0) return "unknown";
    return name;
}

Session::Session(MPI_Comm world, int visible_gpus)
    : world_(Communicator::duplicate(world)), node_(Communicator::split_shared(world_.get())),
      visible_gpus_(visible_gpus) {
    world_rank_ = world_.rank();
    world_size_ = world_.size();
    identity_.node_name = this_node_name();
    identity_.local_rank = node_.rank();
    identity_.local_size = node_.size();

    // Node leaders get a communicator of their own, ordered by world rank; its rank is the
    // node index, shared with the node's other ranks.
    leaders_ = Communicator::split(world_.get(), identity_.is_leader() ? 0 : MPI_UNDEFINED, world_rank_);
    int index_and_count[2] = {0, 1};
    if (leaders_.valid()) {
        index_and_count[0] = leaders_.rank();
        index_and_count[1] = leaders_.size();
    }
    MPI_Bcast(index_and_count, 2, MPI_INT, 0, node_.get());
    identity_.node_index = index_and_count[0];
    identity_.node_count = index_and_count[1];

    if (visible_gpus_ > 0) gpu_ = identity_.local_rank % visible_gpus_;
}

}  // namespace shakedown
