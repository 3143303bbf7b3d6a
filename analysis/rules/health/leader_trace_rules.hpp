// The rules that judge a node by more than its metrics, from its leader's trace: RDMA port
// counters, hidden faults (GPU health tables, PCIe AER, Xid events) and PKey agreement.
#pragma once

#include "analysis/energy/energy_figures.hpp"
#include "analysis/load/observations.hpp"
#include "analysis/rules/model/finding.hpp"
#include "analysis/rules/settings/thresholds.hpp"
#include "profile/profile.hpp"

#include <vector>

namespace shakedown::analysis {

struct LeaderTraceFindings {
    std::vector<Finding> port_counters;
    std::vector<Finding> hidden_faults;
    std::vector<Finding> pkeys;
    std::vector<EnergyRow> energy;  // not findings: figures from the GPU tables read in the same pass
};

// The port counter, hidden fault (GPU health, PCIe AER, Xid events) and PKey rules over every
// node, and the energy figures of the nodes that ran a test declaring them on a GPU
// (energy/energy_figures.hpp), from one read of each leader's trace (each rule reading every leader itself opened each
// file three times). One node at a time, keeping only those tables: the GPU tables of a long run
// are large, and a fleet's worth must not sit in memory together. The findings are each rule's
// own, in node order. `jobs` above 1 reads the leaders in that many forked processes
// (load/forked_workers.hpp), with the same findings in the same order.
LeaderTraceFindings leader_trace_findings(const Observations& observations, const AnalysisSettings& settings,
                                          const profile::Profile* profile = nullptr, int jobs = 1);

}  // namespace shakedown::analysis
