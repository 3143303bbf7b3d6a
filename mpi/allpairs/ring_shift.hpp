// One round of the all-pairs ring-shift schedule: in round k every rank i measures toward
// (i+k)%P and answers (i-k+P)%P, all ranks at once, so N-1 rounds cover every ordered pair
// without ever running N x N traffic. Every iteration starts from a barrier, so a slow rank
// delays only the pairs it is part of, not everyone downstream of it in the ring.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <optional>
#include <string>

namespace shakedown::mpi {

struct ShiftSpec {  // allpairs' declared parameters
    std::size_t latency_bytes = 0;
    int latency_warmup = 0;
    int latency_iterations = 0;
    std::size_t bandwidth_bytes = 0;
    int bandwidth_window = 0;  // messages in flight per bandwidth iteration
    int bandwidth_warmup = 0;
    int bandwidth_iterations = 0;
    double delay_s = 0.0;  // planted slowness: sleep before every message this rank sends
    bool corrupt = false;  // planted corruption: flip a byte of the first received payload
};

struct ShiftRound {
    int send_to = 0;
    int receive_from = 0;
    double latency_us = 0.0;              // half round trip toward send_to, median over iterations
    double bandwidth_gbs = 0.0;           // this rank -> send_to, median over iterations
    std::optional<std::string> mismatch;  // first payload error this rank saw, described
};

// Collective over `comm`; shift is 1..size-1.
ShiftRound measure_shift(MPI_Comm comm, int shift, const ShiftSpec& spec);

}  // namespace shakedown::mpi
