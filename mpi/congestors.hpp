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

// Collective over `congesting`; returns once the world rank `stop_from` sent the stop message
// (tag congestor_stop_tag on `world`). Between rounds the congesting ranks agree, through their
// rank 0, whether it came, so all of them leave after the same round.
CongestorWork run_congestors(MPI_Comm congesting, MPI_Comm world, int stop_from, const CongestorSpec& spec);

// Sent by the measuring ranks' leader to the congesting ranks' rank 0 (`to`, a world rank).
void stop_congestors(MPI_Comm world, int to);

}  // namespace shakedown::mpi
