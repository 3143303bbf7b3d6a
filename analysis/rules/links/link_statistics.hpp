// Link and node statistics of the allpairs matrix (rank 0's samples, src/comm/link_matrix_columns.hpp):
// every sample of two nodes (each rank pair, both directions, every repeated row of a pair) folded
// into one node link, a reference for each link and node that a faulty node cannot drag down, and a
// level from the bands of the settings with a margin for the measurement noise.
//
// Why these choices:
//  - a link's reference is the median of the links touching neither of its nodes: a slow node
//    lowers every link it is on, so a job-wide median would blame its healthy peers' links. A
//    fleet of 3 or 4 nodes has fewer than `min_reference_links` such links (3 nodes: none,
//    4 nodes: one), and every other link is the reference there;
//  - a node's figure is the upper median of its links (with two links: the better one), so a node
//    is slow only when at least half of its links are, and one slow link of two does not make
//    both of its ends slow nodes; its reference is the median of the links not touching it;
//  - the noise is measured, not assumed: each sample's relative spread around its link's mean
//    (log scale), pooled over every link with repeated samples with a median, so a slow link
//    (which moves all of its samples) does not inflate it; and the scatter of the healthy links
//    around their references, which the margins use where it is larger. A link or node is flagged
//    only when it is below its band AND beyond the noise margin below its reference
//    (family_sigmas), so a noisy but healthy fabric does not fail while a 13-20 % slow node on a
//    quiet one still warns;
//  - faults only lower a link: when the links split at a gap wider than the FAIL band and the
//    noise, the links below it (a low mode: a switch uplink behind a third of the nodes, several
//    slow nodes) are left out of every reference, even where they are most of the links touching
//    neither end.
#pragma once

#include "analysis/load/observations.hpp"
#include "analysis/rules/model/finding.hpp"
#include "analysis/rules/settings/analysis_settings.hpp"
#include "core/result.hpp"

#include <string>
#include <vector>

namespace shakedown::analysis {

struct NodeLink {
    std::string a;  // a before b in the run's node order
    std::string b;
    double bandwidth_gbs = 0.0;  // median over the samples
    double latency_us = 0.0;
    int samples = 0;
    // Judged by judge_links():
    double reference_gbs = 0.0;  // median of the reference links
    int reference_links = 0;
    bool disjoint_reference = true;  // the links touching neither end (false: every other link)
    double ratio = 1.0;              // bandwidth / reference
    double sigma = 0.0;              // the ratio's relative noise (log scale): this link's and the reference's
    Level level = Level::pass;
    // Each direction on its own (a row of the matrix is its source's send): a -> b and b -> a,
    // the medians of their samples (no samples: the matrix has none that way).
    double a_to_b_gbs = 0.0;
    int a_to_b_samples = 0;
    double b_to_a_gbs = 0.0;
    int b_to_a_samples = 0;
    // One direction slow (judge_links): that direction FAILs against the link's reference, the
    // other does not, and the two are apart by the square of the FAIL band beyond their noise. The link's figure (bandwidth,
    // ratio, sigma, samples, level) is then the slow direction's, sent by `slow_from`; the mean of both would halve a 50x
    // fault and leave it a WARN. "" : judged on both directions.
    std::string slow_from;
    double reverse_gbs = 0.0;  // the other direction's median, with its ratio
    double reverse_ratio = 1.0;
    // Time inside the run: each ordered rank pair's rows are its rounds. A direction whose rounds
    // split into a before and an after further apart than change_gap changed during the run: its
    // figures above are its rounds from then on (the link's state at the end of the run).
    int rounds = 1;
    int changed_from_round = 0;  // 0-based; 0: no change
    double before_gbs = 0.0;     // the median before the change

    bool changed() const { return changed_from_round > 0; }

    bool one_direction() const { return !slow_from.empty(); }
    // "node0001<->node0002", or its slow direction "node0001->node0002".
    std::string name() const { return one_direction() ? slow_from + "->" + other_end(slow_from) : a + "<->" + b; }
    bool touches(const std::string& node) const { return a == node || b == node; }
    const std::string& other_end(const std::string& node) const { return a == node ? b : a; }
};

// Two groups of samples whose medians are apart by more than this (the lower over the higher)
// are two figures, not one figure's spread: the square of the default FAIL band; a +-30 %
// spread puts two samples at most 0.54 apart.
inline constexpr double change_gap = 0.49;

struct TimedSample {
    int round = 0;
    double gbs = 0.0;
};

// One sample's relative noise (sigma on the log scale) and what follows for medians of samples.
struct MeasurementNoise {
    double measured_sigma = 0.0;  // the pooled estimate; 0 when no link has repeated samples
    // What the margins use: the estimate raised by one of its own standard errors, since a MAD of
    // a few deviations (4 nodes, one sample per direction: 6) easily comes out low.
    double sample_sigma = 0.0;
    int degrees_of_freedom = 0;  // sum over the links of (samples - 1)
    int links_with_repeats = 0;  // links that had 2 or more samples
    int typical_samples = 1;     // median samples per link
    // The scatter of the healthy links' ratios to their references (judge_links): the floor of a
    // link figure's sigma. It covers what repeats cannot show — a few repeats that happen to agree,
    // links that differ for good — and is 0 until judged, or with fewer than 3 healthy links.
    double between_sigma = 0.0;

    // The sigma of one link's figure, the median of `samples` samples (the mean of two).
    double of_median(int samples) const;
    // The sigma of the median of `links` link figures, each the median of typical_samples samples.
    double of_link_median(int links) const;
};

// The bands in force for one figure: below `fail` FAILs, below `warn` WARNs. Each is the band of
// the settings, or exp(-noise_sigmas x sigma) when that is lower (the shortfall must exceed the noise).
struct Bounds {
    double warn = 0.0;
    double fail = 0.0;
    bool noise_limited = false;  // the noise margin, not the band, set `fail`
};
Bounds effective_bounds(double warn_band, double fail_band, double sigma, double noise_sigmas);
Level level_of(double ratio, const Bounds& bounds);

struct FoldedLinks {
    std::vector<NodeLink> links;  // node pairs with at least one inter-node sample
    MeasurementNoise noise;
};

// Inter-node samples folded into node pairs; `nodes` is the run's node order.
FoldedLinks fold_node_links(const SampleTable& matrix, const Observations& observations,
                            const std::vector<std::string>& nodes);

struct NodeStatistic {
    std::string node;
    int links = 0;
    double value_gbs = 0.0;  // the upper median of its links
    double min_gbs = 0.0;
    double max_gbs = 0.0;
    double reference_gbs = 0.0;  // the median of the links not touching it
    int reference_links = 0;
    double ratio = 1.0;
    double sigma = 0.0;
    Level level = Level::pass;  // node bands
};

// The sigmas of the noise margin when `figures` figures are judged at once: noise_sigmas, or the
// normal quantile that keeps the chance of any healthy figure of them falling beyond it below
// false_fail_rate, whichever is larger (6 links: 3.6, 120: 4.3, 130 816: 5.7).
double family_sigmas(std::size_t figures, const LinkBands& bands);

struct LinkJudgement {
    MeasurementNoise noise;                 // the one given, with between_sigma measured
    std::vector<NodeStatistic> node_stats;  // one per node with links, in the order of `nodes`
    double link_sigmas = 0.0;               // the margins' sigmas for links (family_sigmas of the links)
    double node_sigmas = 0.0;               // for nodes and groups (of the nodes)
    // The low mode: the links below the widest gap between sorted neighbours, when it is a ratio
    // beyond 1 / link_fail and the noise, left out of every reference.
    int low_mode_links = 0;
    double reference_floor_gbs = 0.0;  // the slowest link a reference may use
};

// Each link's reference, ratio, noise and level (link bands), and each node's (node bands); then
// each direction of a link against the link's reference: one that FAILs while the other passes
// makes the link that direction (NodeLink::slow_from). Nodes keep the figures of both directions.
LinkJudgement judge_links(std::vector<NodeLink>& links, const std::vector<std::string>& nodes, const MeasurementNoise& noise,
                          const LinkBands& bands);

}  // namespace shakedown::analysis
