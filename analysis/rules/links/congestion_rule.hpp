// The congestion tests' impact factors judged (mpi/congestion/congestion.cpp and its NCCL variant: congested over baseline,
// 1 no impact, above 1 worse), p50 latency and bandwidth (the p99 one is shown, not judged), at or above
// `congestion.warn_impact` WARN, at `fail_impact` FAIL. With rank 0's ring figures (one per measuring rank and ring, with
// its neighbours), the nodes named are the fewest that explain every degraded figure
// (rules/links/congestion_localization.hpp): a node the degraded figures have in common gets one finding,
// `<key>.ring_links_impact` (the upper median of the figures it explains), its ring neighbours whose figures it explains as
// its peers and no finding of their own; a node named by its own figure (or by figures that are all its own while that
// figure is in the band, as on one node) gets its node_*_impact finding. Before that the same search on each figure's
// bandwidth alone against the run's names the nodes whose links are slow even without the congestors
// (`<key>.ring_links_slowdown_alone`, reason slow_node_links, the same bands), as their figures hardly degrade further under
// load; they win the impact search's ties, and while one is named every other node's impact finding is at most a WARN that
// says it may be that node's victim (the congestors' traffic to a slow node waits in every sender's queue). Without those
// figures (a trace from before them) each node's own figures (node_*_impact, on its first measuring rank) are judged: one
// finding per node, its worst statistic. The nodes whose own figures degrade most are named beside every finding. When no
// node crosses the band but the job-wide figure (rank 0's, over the communicator's measuring ranks) does, the fabric as a
// whole degrades under load: one finding whose cause is the fabric's configuration (routing, QoS), not a node, so nothing is
// drained for it.
#pragma once

#include "analysis/load/observations.hpp"
#include "analysis/rules/model/finding.hpp"
#include "analysis/rules/settings/analysis_settings.hpp"

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace shakedown::analysis {

// One node's worst impact factor, for the ranking.
struct NodeImpact {
    const RankIdentity* who = nullptr;  // the node's rank that reported it
    std::string test;                   // "congestion" or "congestion_nccl"
    std::string statistic;              // "latency_p50" or "bandwidth"
    double impact = 0.0;
};

// Every node that reported congestion figures, the most degraded first.
std::vector<NodeImpact> nodes_by_congestion_impact(const Observations& observations);

// The figure of a node that the degraded ring figures have in common: `<key>.` before it.
inline constexpr std::string_view ring_links_impact = "ring_links_impact";
// The figure of a node that the ring figures slow even alone have in common.
inline constexpr std::string_view ring_links_slowdown_alone = "ring_links_slowdown_alone";

// Rank 0's samples of a test key, if it ran there (RunDetails::rank0_samples).
using Rank0Samples = std::function<std::optional<SampleTable>(const std::string& key)>;

// Both tests' findings (congestion and congestion_nccl, each judged on its own); without
// `rank0_samples` (or without ring columns in them), from each node's own figures.
std::vector<Finding> congestion_findings(const Observations& observations, const AnalysisSettings& settings,
                                         const Rank0Samples& rank0_samples = {});
std::vector<Finding> congestion_findings_of(const Observations& observations, const AnalysisSettings& settings,
                                            const std::string& key, const Rank0Samples& rank0_samples = {});

}  // namespace shakedown::analysis
