// The congestion test's load: the congesting ranks run their congestors in turn (GPCNeT's
// kinds: alltoall among them, incast to a few of them, broadcast from a rotating root) until
// the measuring ranks' leader says it has finished. The congestors' payloads are load, not
// measurement: they are not checked.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <string>
#include <vector>

namespace shakedown::mpi {

struct CongestorSpec {
    std::vector<std::string> kinds;  // "alltoall", "incast", "broadcast", in this order
    std::size_t alltoall_bytes = 0;  // to every other congesting rank
    std::size_t message_bytes = 0;   // incast and broadcast
    int incast_targets = 0;
};

struct CongestorWork {
    long rounds = 0;  // times every congestor kind ran
    double bytes_sent = 0.0;
};

// The measuring ranks' "finished" as the congesting ranks see it: their rank 0 listens for the
// message from `stop_from` (a rank of `world`), and between rounds all of them agree, through
// it, whether it came, so every congesting rank leaves after the same round.
class StopSignal {
public:
    StopSignal(MPI_Comm congesting, MPI_Comm world, int stop_from);
    ~StopSignal();
    StopSignal(const StopSignal&) = delete;
    StopSignal& operator=(const StopSignal&) = delete;
    bool arrived();  // collective over `congesting`

private:
    MPI_Comm congesting_;
    MPI_Request request_ = MPI_REQUEST_NULL;
    int word_ = 0;
    bool leader_ = false;
};

// Collective over `congesting`; returns once the StopSignal from `stop_from` arrived.
CongestorWork run_congestors(MPI_Comm congesting, MPI_Comm world, int stop_from, const CongestorSpec& spec);

// Sent by the measuring ranks' leader to the congesting ranks' rank 0 (`to`, a world rank).
void stop_congestors(MPI_Comm world, int to);

}  // namespace shakedown::mpi
