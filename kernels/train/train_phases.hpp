// The three phases train_step times on the same engine, and the figures each gives: every rank
// runs the step at once with no gradient exchange ("alone": T1, every GPU loaded so power and heat
// are real), data-parallel over each node's ranks ("node"), and over every rank of the test
// ("job"). Also each node's network link, from all-reduces between node leaders paired on a
// round-robin schedule, and the bus bandwidth each phase's communicator gives.
#pragma once

#include "core/result.hpp"
#include "kernels/train/train_engine.hpp"

#include <mpi.h>

#include <optional>
#include <vector>

namespace shakedown::kernels::train {

struct PhaseFigures {
    std::vector<double> step_s;          // every timed step
    std::vector<double> exposed_s;       // its time not hidden behind compute (seconds - compute_s)
    double median_s = 0.0;
    double p95_s = 0.0;
    double compute_s = 0.0;              // median time until the backward ended
    double exposed_median_s = 0.0;
    std::vector<double> bucket_ready_s;  // median per bucket
    TimeWindow window;                   // from the first timed step's start to the last's end
};

// `warmup` untimed then `steps` timed steps, each started together on every rank of `together`
// (a barrier, outside the time). The engine must already reduce over the phase's communicator.
PhaseFigures run_phase(TrainEngine& engine, const std::vector<Bucket>& buckets, MPI_Comm together, int warmup,
                       int steps, double delay_s);

// Bus bandwidth (GB/s) of an all-reduce of the largest bucket over `comm` (0 on one rank).
double measure_bus_gbs(TrainEngine& engine, MPI_Comm comm, const std::vector<Bucket>& buckets, int repetitions);

// Each node's link: node leaders (rank 0 of each `node_comm`) pair up for min(leaders - 1, 3)
// rounds of a round-robin schedule, each pair timing an all-reduce of the largest bucket between
// the two nodes; a leader's figure is the median of its pairs' bus bandwidths. Nothing on ranks
// that are not leaders, and on every rank when the test has one node. Collective over `comm`.
std::optional<double> measure_node_link_gbs(TrainEngine& engine, MPI_Comm comm, MPI_Comm node_comm,
                                            const std::vector<Bucket>& buckets, int repetitions);

// The rounds of a round-robin schedule over `players` (circle method): each round a list of
// disjoint pairs, every player in at most one; `rounds` of them (at most players - 1).
std::vector<std::vector<std::pair<int, int>>> round_robin_rounds(int players, int rounds);

}  // namespace shakedown::kernels::train
