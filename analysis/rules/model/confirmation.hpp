// Confirm before drain. A FAIL that rests on a figure (a rate, a latency, a link below its
// reference) is measured once in a run: it awaits a confirmation run that measures its tests
// again on its node and the peers it rests on, and drains only when that run measures it FAIL
// again. A FAIL the confirmation measured within its band becomes a WARN "not reproduced".
// Observed faults (wrong answers, failed tests, error counters, missing devices, stalls, nodes
// Slurm lost) drain at once. The confirmation run is judged against the first run's fleet and
// references (load/remeasured_run.hpp); this file decides what each FAIL became.
//
// A figure of a test (a rate, a latency) is measured again in place: the same rules over the run
// with the confirmation's results judge it. A link finding (a slow link, node or group from the
// link matrix) rests on links: its evidence links as measured again, each against the first
// run's reference for that link, must still be below the band it failed (the link FAIL band
// for a slow link, the node FAIL band for a slow node or group member: their median ratio).
#pragma once

#include "analysis/load/observations.hpp"
#include "analysis/load/remeasured_run.hpp"
#include "analysis/rules/links/link_localization.hpp"
#include "analysis/rules/model/finding.hpp"
#include "analysis/rules/model/verdicts.hpp"

#include <string>
#include <vector>

namespace shakedown::analysis {

// Every FAIL resting on a figure now awaits its confirmation (the rules' last step).
void await_confirmation(std::vector<Finding>& findings);

// What a confirmation run must measure again: the tests of every FAIL awaiting it, on their
// nodes and peers, in run order; empty when nothing awaits.
struct ConfirmationPlan {
    std::vector<std::string> tests;
    std::vector<std::string> nodes;
    int awaiting = 0;  // findings (a slow link counts on each of its ends)

    bool empty() const { return awaiting == 0; }
};
ConfirmationPlan confirmation_plan(const Judgement& judgement, const Observations& observations);

// Whether the confirmation run measured the finding's test on its node and every peer.
bool remeasured(const Finding& finding, const Remeasured& remeasured);

// The findings of the final analysis: `again` (the rules over the run with the confirmation's
// figures in place) with each FAIL resting on a figure confirmed when `first` had it as a FAIL
// too and the confirmation measured it; a FAIL of `first` the confirmation measured within its
// band is a WARN "not reproduced". A FAIL the confirmation did not measure still awaits.
// `first_links`: the first run's link localizations (their references and bands), one per matrix.
std::vector<Finding> confirm_findings(const std::vector<Finding>& first, std::vector<Finding> again,
                                      const Remeasured& remeasured, const std::vector<const LinkLocalization*>& first_links);

// Every finding of a judgement, in its nodes' order.
std::vector<Finding> all_findings(const Judgement& judgement);

}  // namespace shakedown::analysis
