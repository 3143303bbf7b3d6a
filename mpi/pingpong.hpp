// The ping-pong kernel shared by mpi_pingpong, p2p and gpu_aware_mpi: the initiator sends a
// message, the responder echoes it back; half the round trip is the latency. Every timed
// iteration carries a payload unique to (iteration, size), validated on both sides outside
// the timed window: the responder checks what arrived after echoing it, the initiator checks
// the echo after stopping its clock.
#pragma once

#include "comm/iteration_plan.hpp"
#include "comm/message_buffer.hpp"
#include "comm/pair_sweep.hpp"

#include <mpi.h>

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace shakedown::mpi {

struct PingPongSpec {
    std::size_t bytes = 8;
    comm::IterationPlan plan;
    double delay_s = 0.0;  // planted slowness: sleep before every message this rank sends
    bool corrupt = false;  // planted corruption: flip a byte of the first received payload
};

struct PayloadMismatch {
    int detected_by = -1;  // rank in the communicator given to ping_pong
    std::size_t bytes = 0;
    int iteration = 0;  // negative: a warm-up iteration
    std::size_t index = 0;
    // Names the pair, size, iteration, byte and the rank that saw it (ranks as the caller numbers them).
    std::string describe(int first, int second, int detector) const;
    // The same in the world ranks of `turn` (the pair the mismatch was found in).
    std::string describe(const comm::PairTurn& turn) const {
        return describe(turn.first_world, turn.second_world, turn.world_of(detected_by));
    }
};

struct PingPongOutcome {
    std::vector<double> half_round_trip_s;  // one per timed iteration; filled on both ranks
    std::optional<PayloadMismatch> mismatch;  // the first one either rank found

    std::vector<double> half_round_trip_us() const;
};

// Collective over the pair (me, peer) of `comm`. Buffers must hold spec.bytes; the responder
// only uses `receive`.
PingPongOutcome ping_pong(MPI_Comm comm, int peer, bool initiator, const PingPongSpec& spec,
                          comm::MessageBuffer& send, comm::MessageBuffer& receive);

// Same with host buffers.
PingPongOutcome ping_pong(MPI_Comm comm, int peer, bool initiator, const PingPongSpec& spec);

}  // namespace shakedown::mpi
