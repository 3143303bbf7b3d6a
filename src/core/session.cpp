#include "core/session.hpp"

#include <unistd.h>

#include <algorithm>
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
    gpu_owner_ = world_rank_;
}

void Session::record_gpu_identity(const std::string& gpu_identity) {
    constexpr std::size_t width = 80;  // "GPU-" + 36 characters of UUID, with room to spare
    std::string key = !gpu_ ? std::string() : gpu_identity.empty() ? "ordinal " + std::to_string(*gpu_) : gpu_identity;
    key.resize(width, '\0');
    const int ranks = identity_.local_size;
    std::vector<char> keys(width * static_cast<std::size_t>(ranks));
    std::vector<int> world_ranks(static_cast<std::size_t>(ranks));
    MPI_Allgather(key.data(), static_cast<int>(width), MPI_CHAR, keys.data(), static_cast<int>(width), MPI_CHAR, node_.get());
    MPI_Allgather(&world_rank_, 1, MPI_INT, world_ranks.data(), 1, MPI_INT, node_.get());
    gpu_owner_ = world_rank_;
    if (gpu_)
        for (int other = 0; other < ranks; ++other)
            if (std::equal(key.begin(), key.end(), keys.begin() + static_cast<std::ptrdiff_t>(other) * static_cast<std::ptrdiff_t>(width)))
                gpu_owner_ = std::min(gpu_owner_, world_ranks[static_cast<std::size_t>(other)]);
    const int owns = gpu_ && gpu_owner_ == world_rank_ ? 1 : 0;
    MPI_Allreduce(&owns, &gpus_measured_, 1, MPI_INT, MPI_SUM, world_.get());
}

std::optional<int> Session::gpu_owner() const {
    if (!gpu_) return std::nullopt;
    return gpu_owner_;
}

}  // namespace shakedown
