// Which nodes explain the degraded figures of the congestion tests' random rings (rank 0's
// samples: comm/congestion_ring_columns.hpp, one row per measuring rank and ring). A rank's
// figure in one ring crosses its own node's link and its two ring neighbours' (it exchanges with
// both for the latency, receives from the previous one and sends to the next for the bandwidth),
// so a degraded figure says that one of those three nodes' links degrades under load. A slow link
// degrades its neighbours' figures as much as its own node's, or more (an eager send completes
// at once; the neighbour waits for it): on the virtual cluster the shaped node's two neighbours
// were the most degraded. So the fewest nodes that explain every degraded figure are named:
//  1. greedily, the node the most unexplained degraded figures have in common, 2 or more (ties:
//     the larger share of all figures across its links that degraded, then more of its own
//     figures degraded, then run order). In each of the rings the node has other neighbours, and
//     only it is common to the degraded figures of all of them;
//  2. a degraded figure left, that no node explains twice, is its own node's when that node's
//     own figure (node_*_impact, the median over its rows) is in the band too; otherwise one
//     figure of one ring is noise, and nothing is named for it.
// The impact factor compares a figure with the same figure alone, so a link that is slow even
// alone hardly degrades further (on the virtual cluster a link shaped to 10 Mbit/s carried the
// ring bandwidth at that rate with and without the congestors: impact about 1, while its
// neighbours' noise named one of them). So the same search is made on each figure's bandwidth
// alone against the run's (its slowdown: the upper quartile of every figure's bandwidth alone
// over its own, a reference that holds while fewer than three quarters of the figures cross a
// slow link); a node found slow alone is preferred in the impact search's ties, as it explains
// its figures either way.
#pragma once

#include "core/result.hpp"

#include <functional>
#include <set>
#include <string>
#include <vector>

namespace shakedown::analysis {

// One ring figure of one measuring rank, its nodes by name.
struct RingRow {
    int rank = 0;
    int ring = 0;
    std::string node;
    std::string previous;  // the node of its previous ring neighbour
    std::string next;
    double latency_p50_impact = 0.0;           // congested over baseline
    double bandwidth_impact = 0.0;             // baseline over congested
    double baseline_slowdown = 0.0;            // the run's reference bandwidth alone over this figure's (NaN: none)
    double worst() const;                      // the larger finite impact (NaN when neither is)
    std::string_view worst_statistic() const;  // "latency_p50" or "bandwidth"
};

// Which figure of a row the search judges.
enum class RingFigure { impact, baseline_slowdown };

// The rows of rank 0's table, their baseline slowdowns set; `node_of(rank)` is "" for a rank the run does not have (that row
// is skipped). Empty when the table lacks the ring columns (a trace from before them).
std::vector<RingRow> ring_rows(const SampleTable& table, const std::function<std::string(int)>& node_of);

struct RingCulprit {
    std::string node;
    bool common_to_figures = false;       // step 1 (else step 2: its own figure)
    std::vector<RingRow> evidence;        // the degraded figures it explains, worst first
    std::vector<std::string> neighbours;  // the other nodes whose degraded figures it explains, run order
    double impact = 0.0;                  // the evidence's upper median of the judged figure
    std::string statistic;                // that figure's worst statistic ("bandwidth_alone" for the slowdown)
};

// `nodes`: the run's nodes in run order; `warn`: a figure at or above it is degraded;
// `own_figure_in_band(node)`: whether the node's own figure is at or above `warn`;
// `preferred`: nodes that win a tie of step 1 (the nodes found slow alone).
std::vector<RingCulprit> ring_culprits(const std::vector<RingRow>& rows, const std::vector<std::string>& nodes, double warn,
                                       const std::function<bool(const std::string&)>& own_figure_in_band,
                                       RingFigure figure = RingFigure::impact, const std::set<std::string>& preferred = {});

}  // namespace shakedown::analysis
