// The rules that judge a node by more than its metrics, from its leader's trace: RDMA port
// counters, hidden faults (GPU health tables, PCIe AER, Xid events) and PKey agreement.
#pragma once

#include "analysis/load/observations.hpp"
#include "analysis/rules/finding.hpp"
#include "analysis/rules/thresholds.hpp"
#include "profile/profile.hpp"

#include <vector>

namespace shakedown::analysis {

struct LeaderTraceFindings {
    std::vector<Finding> port_counters;
    std::vector<Finding> hidden_faults;
    std::vector<Finding> pkeys;
};

// The port counter, hidden fault (GPU health, PCIe AER, Xid events) and PKey rules over every
// node, from one read of each leader's trace: each rule reading all the leaders' traces itself
// opened every leader file three times, one after the other in the analyzer, after the load
// (1.0 s of CPU at 16,384 ranks, 2048 leaders). One node at a time, keeping only those tables:
// the GPU tables of a long run are large, and a fleet's worth must not sit in memory together.
// The findings are each rule's own, in its own order. A trace the joint read fails on is read
// again rule by rule, as each rule read it alone (a trace whose events are unreadable still has
// its port counters judged).
LeaderTraceFindings leader_trace_findings(const Observations& observations, const AnalysisSettings& settings,
                                          const profile::Profile* profile = nullptr);

}  // namespace shakedown::analysis
