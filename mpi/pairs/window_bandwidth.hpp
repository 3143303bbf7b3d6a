// Streaming bandwidth the OSU way: the sender keeps a window of non-blocking sends in flight
// into one receive buffer, the receiver answers each full window with a small ack;
// bi-directional runs both ways at once. Validation runs after the timed loop, untimed: the last
// timed arrival against the timed payload, then one window's worth of messages over the same
// buffers, each its own payload, checked as it arrives.
#pragma once

#include "comm/iteration_plan.hpp"
#include "mpi/pairs/pingpong.hpp"

#include <mpi.h>

#include <cstddef>
#include <optional>

namespace shakedown::mpi {

struct WindowSpec {
    std::size_t bytes = 0;
    comm::IterationPlan plan{10, 100};
    int window = 64;
    bool bidirectional = false;
    double delay_s = 0.0;  // planted slowness: sleep before each window this rank sends
    bool corrupt = false;  // planted corruption: flip a byte of a received slot before validation
};

struct WindowOutcome {
    double seconds = 0.0;          // timed iterations, as the initiator measured them
    double gigabytes_per_s = 0.0;  // both directions counted when bidirectional
    double messages_per_s = 0.0;   // messages the initiator sent per second
    std::optional<PayloadMismatch> mismatch;
};

// Collective over the pair; both ranks return the initiator's figures.
WindowOutcome window_bandwidth(MPI_Comm comm, int peer, bool initiator, const WindowSpec& spec);

}  // namespace shakedown::mpi
