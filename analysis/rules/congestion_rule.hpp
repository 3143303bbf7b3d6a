// The congestion tests' impact factors judged (mpi/congestion.cpp and its NCCL variant: congested over baseline, 1 no
// impact, above 1 worse). Each node's p50 latency and bandwidth figures (congestion.node_*_impact,
// on the node's first measuring rank; the p99 one is shown, not judged) at or above
// `congestion.warn_impact` WARN, at `fail_impact` FAIL: one finding per node, its worst
// statistic, with the nodes whose links degrade most named beside it. When
// no node crosses the band but the job-wide figure (rank 0's, over the communicator's measuring
// ranks) does, the fabric as a whole degrades under load: one finding whose cause is the fabric's
// configuration (routing, QoS), not a node, so nothing is drained for it.
#pragma once

#include "analysis/load/observations.hpp"
#include "analysis/rules/analysis_settings.hpp"
#include "analysis/rules/finding.hpp"

#include <string>
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

// Both tests' findings (congestion and congestion_nccl, each judged on its own).
std::vector<Finding> congestion_findings(const Observations& observations, const AnalysisSettings& settings);
std::vector<Finding> congestion_findings_of(const Observations& observations, const AnalysisSettings& settings,
                                            const std::string& key);

}  // namespace shakedown::analysis
