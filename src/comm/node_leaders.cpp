#include "comm/node_leaders.hpp"

#include "core/activity.hpp"
#include "core/session.hpp"

#include <chrono>
#include <thread>

namespace shakedown::comm {

Communicator leaders_of(const RunContext& ctx) {
    // Ranks of ctx.comm() on the same node (as the session named them) share a colour; the
    // lowest of them leads.
    const Communicator on_node = Communicator::split(ctx.comm(), ctx.session().identity().node_index, ctx.rank());
    const bool leads = on_node.rank() == 0;
    return Communicator::split(ctx.comm(), leads ? 0 : MPI_UNDEFINED, ctx.rank());
}

void wait_for_leaders(const RunContext& ctx, bool leader, const std::string& phase) {
    if (!leader) ctx.session().activity().set_phase(phase);
    MPI_Request all_done = MPI_REQUEST_NULL;
    MPI_Ibarrier(ctx.comm(), &all_done);
    if (leader) {
        MPI_Wait(&all_done, MPI_STATUS_IGNORE);
        return;
    }
    for (int done = 0; MPI_Test(&all_done, &done, MPI_STATUS_IGNORE), !done;)
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
}

std::vector<std::string> allgather_text(MPI_Comm comm, const std::string& mine) {
    int size = 0;
    MPI_Comm_size(comm, &size);
    const int length = static_cast<int>(mine.size());
    std::vector<int> lengths(static_cast<std::size_t>(size));
    MPI_Allgather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, comm);
    std::vector<int> offsets(lengths.size(), 0);
    int total = 0;
    for (std::size_t i = 0; i < lengths.size(); ++i) {
        offsets[i] = total;
        total += lengths[i];
    }
    std::string all(static_cast<std::size_t>(total), '\0');
    MPI_Allgatherv(mine.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(), MPI_CHAR, comm);
    std::vector<std::string> texts;
    for (std::size_t i = 0; i < lengths.size(); ++i) texts.push_back(all.substr(offsets[i], lengths[i]));
    return texts;
}

}  // namespace shakedown::comm
