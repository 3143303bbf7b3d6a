// The measurement of the congestion test: a random ring over the measuring ranks (the same
// permutation on every rank), latency as the time of one small exchange with both ring
// neighbours at once and bandwidth as a window of large messages to the next rank while the
// previous one sends to this one, as GPCNeT's random-ring tests measure. Warm-up iterations are
// excluded, every iteration starts from a barrier of the measuring ranks and is timed with
// MPI_Wtime (OSU's method), and every message received is checked byte by byte after the timing.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace shakedown::mpi {

struct RingSpec {  // the congestion test's declared measurement parameters
    std::size_t latency_bytes = 0;
    int latency_warmup = 0;
    int latency_iterations = 0;
    std::size_t bandwidth_bytes = 0;
    int bandwidth_window = 0;
    int bandwidth_warmup = 0;
    int bandwidth_iterations = 0;
};

// The ring's neighbours of one rank, in the measuring communicator and in world ranks (for messages).
struct RingPlace {
    int next = 0;
    int previous = 0;
    int next_world = 0;
    int previous_world = 0;
    int me_world = 0;
};

// Position of every measuring rank in the ring: a permutation of 0..size-1 drawn from `seed`.
std::vector<int> random_ring(int size, std::uint64_t seed);
// `count` random rings from `seed`, each with other neighbours than the ones before it where the
// size allows (a drawn ring whose every rank has the neighbours it had in an earlier one is drawn
// again, a bounded number of times): beside different neighbours in each ring, a node whose links
// degrade is the one every degraded ring direction has in common.
std::vector<std::vector<int>> random_rings(int size, std::uint64_t seed, int count);
RingPlace ring_place(const std::vector<int>& ring, int me, const std::vector<int>& world_of);

struct PhaseFigures {
    double latency_p50_us = 0.0;
    double latency_p99_us = 0.0;
    double bandwidth_gbs = 0.0;           // median over iterations
    std::optional<std::string> mismatch;  // the first wrong payload, naming the pair
};

// What a phase plants on this rank: a sleep before every message it sends, a flipped byte in the
// first bandwidth message it receives.
struct PhaseFaults {
    double delay_s = 0.0;
    bool corrupt = false;
};

// Collective over `measuring`. `phase` (0 baseline, 1 congested) and `ring` (which of the
// phase's random rings) seed the payloads and name them.
PhaseFigures measure_ring_phase(MPI_Comm measuring, const RingPlace& place, const RingSpec& spec, int phase, int ring,
                                const PhaseFaults& faults);

}  // namespace shakedown::mpi
