#include "mpi/congestion/congestors.hpp"

#include <algorithm>

namespace shakedown::mpi {
namespace {

constexpr int congestor_stop_tag = 0x7280;
constexpr int incast_tag = 0x7281;

struct Buffers {
    std::vector<char> alltoall_out, alltoall_in, message, incast_in;
};

// Every non-target rank sends one message to target (rank % targets); targets take theirs.
double incast(MPI_Comm comm, int me, int size, int targets, Buffers& b, std::size_t bytes) {
    targets = std::min(targets, size - 1);  // at least one sender
    const int count = static_cast<int>(bytes);
    if (me >= targets) {
        MPI_Send(b.message.data(), count, MPI_BYTE, me % targets, incast_tag, comm);
        return static_cast<double>(bytes);
    }
    for (int sender = targets; sender < size; ++sender)
        if (sender % targets == me)
            MPI_Recv(b.incast_in.data(), count, MPI_BYTE, sender, incast_tag, comm, MPI_STATUS_IGNORE);
    return 0.0;
}

}  // namespace

StopSignal::StopSignal(MPI_Comm congesting, MPI_Comm world, int stop_from) : congesting_(congesting) {
    int me = 0;
    MPI_Comm_rank(congesting, &me);
    leader_ = me == 0;
    if (leader_) MPI_Irecv(&word_, 1, MPI_INT, stop_from, congestor_stop_tag, world, &request_);
}

StopSignal::~StopSignal() {
    if (request_ == MPI_REQUEST_NULL) return;  // completed (MPI_Test resets it)
    MPI_Cancel(&request_);
    MPI_Request_free(&request_);
}

bool StopSignal::arrived() {
    int stopped = 0;
    if (leader_ && request_ != MPI_REQUEST_NULL) MPI_Test(&request_, &stopped, MPI_STATUS_IGNORE);
    MPI_Bcast(&stopped, 1, MPI_INT, 0, congesting_);
    return stopped != 0;
}

CongestorWork run_congestors(MPI_Comm congesting, MPI_Comm world, int stop_from, const CongestorSpec& spec) {
    int me = 0, size = 1;
    MPI_Comm_rank(congesting, &me);
    MPI_Comm_size(congesting, &size);
    Buffers b;
    b.alltoall_out.assign(spec.alltoall_bytes * static_cast<std::size_t>(size), 'a');
    b.alltoall_in.resize(b.alltoall_out.size());
    b.message.assign(spec.message_bytes, 'm');
    b.incast_in.resize(spec.message_bytes);
    StopSignal stop(congesting, world, stop_from);
    CongestorWork work;
    for (bool stopped = false; !stopped;) {
        for (const std::string& kind : spec.kinds) {
            if (size < 2) break;  // nobody to congest with
            if (kind == "alltoall") {
                MPI_Alltoall(b.alltoall_out.data(), static_cast<int>(spec.alltoall_bytes), MPI_BYTE, b.alltoall_in.data(),
                             static_cast<int>(spec.alltoall_bytes), MPI_BYTE, congesting);
                work.bytes_sent += static_cast<double>(spec.alltoall_bytes) * (size - 1);
            } else if (kind == "incast") {
                work.bytes_sent += incast(congesting, me, size, spec.incast_targets, b, spec.message_bytes);
            } else if (kind == "broadcast") {
                const int root = static_cast<int>(work.rounds % size);
                MPI_Bcast(b.message.data(), static_cast<int>(spec.message_bytes), MPI_BYTE, root, congesting);
                if (me == root) work.bytes_sent += static_cast<double>(spec.message_bytes);
            }
        }
        ++work.rounds;
        stopped = stop.arrived();
    }
    return work;
}

void stop_congestors(MPI_Comm world, int to) {
    int word = 1;
    MPI_Send(&word, 1, MPI_INT, to, congestor_stop_tag, world);
}

}  // namespace shakedown::mpi
