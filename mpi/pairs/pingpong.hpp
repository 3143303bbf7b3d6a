// The ping-pong kernel shared by mpi_pingpong, p2p and gpu_aware_mpi: the initiator sends a
// message, the responder echoes it back; half the round trip is the latency. Timed as OSU
// times it (one payload, buffers untouched between iterations), then validated in an untimed
// pass over the same buffers, size and message count, every message a payload unique to
// (message, size) and checked on both sides.
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
    // Iterations timed together per sample (0: iterations / 100, at least 1). OSU times its
    // whole loop; a clock read per message adds its own cost (39 ns a read on the development
    // VM, a tenth of a shared-memory latency), so samples are batch means.
    int batch = 0;
};

struct PayloadMismatch {
    int detected_by = -1;  // rank in the communicator given to ping_pong
    std::size_t bytes = 0;
    int message = 0;  // validation message (0-based); last_timed_message: the timed payload's last arrival
    std::size_t index = 0;
    static constexpr int last_timed_message = -1;
    // Names the pair, size, message, byte and the rank that saw it (ranks as the caller numbers them).
    std::string describe(int first, int second, int detector) const;
    // The same in the world ranks of `turn` (the pair the mismatch was found in).
    std::string describe(const comm::PairTurn& turn) const {
        return describe(turn.first_world, turn.second_world, turn.world_of(detected_by));
    }
};

struct PingPongOutcome {
    std::vector<double> half_round_trip_s;    // one per batch, its mean; filled on both ranks
    std::vector<int> batch_iterations;        // the iterations behind each sample
    std::optional<PayloadMismatch> mismatch;  // the first one either rank found

    std::vector<double> half_round_trip_us() const;
};

// Collective over the pair (me, peer) of `comm`. Both buffers must hold spec.bytes on both sides.
PingPongOutcome ping_pong(MPI_Comm comm, int peer, bool initiator, const PingPongSpec& spec, comm::MessageBuffer& send,
                          comm::MessageBuffer& receive);

// Same with host buffers.
PingPongOutcome ping_pong(MPI_Comm comm, int peer, bool initiator, const PingPongSpec& spec);

}  // namespace shakedown::mpi
