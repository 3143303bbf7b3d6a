// Runs the ping-pong kernel over rounds of rank pairs and a list of sizes, and turns the
// timings into samples and per-pair summaries. Shared by mpi_pingpong and p2p.
#pragma once

#include "comm/iteration_plan.hpp"
#include "comm/pair_sweep.hpp"
#include "core/result.hpp"
#include "stats/summary.hpp"

#include <mpi.h>

#include <cstddef>
#include <string>
#include <vector>

namespace shakedown::mpi {

struct PairLatency {
    comm::RankPair pair;
    int peer_world_rank = 0;
    std::size_t bytes = 0;
    stats::Summary half_round_trip_us;
};

struct LatencySweep {
    std::vector<PairLatency> mine;        // the pairs this rank was part of
    std::vector<std::string> mismatches;  // payload mismatches this rank's pairs found
};

struct LatencySweepSpec {
    std::vector<std::size_t> sizes;
    comm::IterationCounts counts;
    int batch = 100;  // timed iterations per sample row
    double delay_s = 0.0;
    bool corrupt = false;
};

// Collective over `comm` (the communicator `pairs` was planned on). Appends rows (size, peer,
// intra_node, batch, seconds, latency_us) to `samples`, which must have been made by
// latency_sample_table().
LatencySweep run_latency_sweep(MPI_Comm comm, const comm::PairSweep& pairs, const LatencySweepSpec& spec,
                               SampleTable& samples);

SampleTable latency_sample_table();

}  // namespace shakedown::mpi
