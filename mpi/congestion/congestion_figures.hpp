// The congestion tests' figures from every rank's two phases (the MPI test and its NCCL variant
// report the same quantities under their own key): the impact factor per statistic, congested
// over baseline (bandwidth: baseline over congested), from the median over the measuring ranks,
// job-wide on rank 0 and per node on the node's first measuring rank.
#pragma once

#include "comm/pairs.hpp"
#include "core/result.hpp"
#include "core/test_spec.hpp"

#include <mpi.h>

#include <array>
#include <string>
#include <vector>

namespace shakedown::mpi {

struct PhaseSummary {
    double latency_p50_us = 0.0;
    double latency_p99_us = 0.0;
    double bandwidth_gbs = 0.0;
};

// One ring of a measuring rank: its neighbours (world ranks) and both phases' figures.
struct RingFigures {
    int previous_world = 0;
    int next_world = 0;
    PhaseSummary baseline;
    PhaseSummary congested;
};

// This rank's part: measuring ranks give both phases of every ring, congesting ones how many
// rounds they ran.
struct RankFigures {
    bool measures = false;
    std::vector<RingFigures> rings;
    double congestor_rounds = 0.0;
};

// Collective over `comm` (whose ranks `placement` describes; every rank passes the same `rings`,
// the number of rings a measuring rank measured): gathers every rank's figures and adds
// `<key>.*_impact`, `<key>.node_*_impact` (the medians over the rows of every ring), the phases'
// figures, the samples (`spec`'s columns: one row per measuring rank and ring, with its ring
// neighbours) and the congestor_rounds parameter to `result`.
void add_congestion_figures(TestResult& result, const TestSpec& spec, MPI_Comm comm,
                            const std::vector<comm::RankPlacement>& placement, const RankFigures& mine, int rings);

}  // namespace shakedown::mpi
