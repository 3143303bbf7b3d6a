// The all-pairs link matrix: every rank's ring-shift figures gathered on rank 0, summarised
// job-wide (median per link kind) and per rank (its worst link, its links' median), so the
// analyzer can tell a bad node (all its links slow) from a bad link (one slow pair).
#pragma once

#include "comm/pairs.hpp"

#include <mpi.h>

#include <array>
#include <optional>
#include <vector>

namespace shakedown::mpi {

struct Link {
    int src = 0;
    int dst = 0;
    bool intra_node = false;
    double latency_us = 0.0;
    double bandwidth_gbs = 0.0;
};

// What this rank measured in each round: shift k = shifts[i] (every shift 1..P-1 in order when
// `shifts` is empty) at index i. Every rank of the gather must have measured the same shifts.
struct RankMeasurements {
    std::vector<double> latency_to_us;     // toward (me+k)%P
    std::vector<double> bandwidth_to_gbs;  // toward (me+k)%P (the sender times it)
    std::vector<int> shifts;               // mpi/allpairs/shift_schedule.hpp; empty: 1..P-1
};

enum class LinkKind { intra_node = 0, inter_node = 1 };
inline constexpr std::array<LinkKind, 2> link_kinds = {LinkKind::intra_node, LinkKind::inter_node};

// Figures for one link kind; nothing where the job has no link of that kind.
struct KindFigures {
    std::optional<double> job_bandwidth_median_gbs;
    std::optional<double> job_latency_median_us;
    std::optional<double> my_bandwidth_min_gbs;     // worst link this rank is part of
    std::optional<double> my_bandwidth_median_gbs;  // median of the links this rank is part of
    std::optional<double> my_latency_max_us;
    std::optional<double> my_bandwidth_max_gbs;  // best link this rank is part of: what a physical bound checks
};

struct LinkMatrixResult {
    std::vector<Link> links;             // every ordered pair measured; only on rank 0
    std::array<KindFigures, 2> figures;  // this rank's, indexed by LinkKind
};

// Collective over `comm`. `placement` tells which ranks share a node.
LinkMatrixResult gather_link_matrix(MPI_Comm comm, const RankMeasurements& mine,
                                    const std::vector<comm::RankPlacement>& placement);

// Links sorted worst first by bandwidth (ties: higher latency first).
std::vector<Link> worst_links_first(std::vector<Link> links);

}  // namespace shakedown::mpi
