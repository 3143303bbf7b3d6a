// What a rule says about a rank or node: a WARN or FAIL with the numbers, which rule said it,
// and (filled later) what the telemetry showed in the test's window. Every rule is a function
// from the observations (load/observations.hpp) to findings; verdicts are computed once from all
// of them (rules/model/verdicts.hpp).
#pragma once

#include "analysis/load/observations.hpp"
#include "analysis/rules/model/reason_code.hpp"
#include "core/cause.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace shakedown::analysis {

enum class Level { pass, warn, fail };
std::string_view to_string(Level level);

// Which rule made a finding: the test's own status or its metrics' thresholds, the fleet outlier
// rule, the baseline comparison, link localization, the collective's slow-rank figures, or the
// whole-run RDMA port error counters, a physical bound a figure cannot pass (credibility), or the
// rank that stopped while the others waited for it (stall), or a node Slurm marked down during
// the job (scheduler), or a GPU health counter or Xid event (hidden_faults: rules/health/hidden_fault_rule.hpp).
enum class FindingSource {
    threshold,
    fleet,
    baseline,
    links,
    collective,
    port_counters,
    credibility,
    stall,
    scheduler,
    hidden_faults,
    pkeys,               // the RDMA ports' PKey tables compared across nodes (rules/health/pkey_rule.hpp)
    scaling,             // train_step's scaling against its prediction (rules/figures/scaling_rule.hpp)
    software_stack,      // the node's software cannot use its hardware (rules/figures/blas_kernel_rule.hpp)
    configuration_drift  // a node's versions or firmware differ from the fleet's
                         // (rules/figures/configuration_agreement_rule.hpp)
};
std::string_view to_string(FindingSource source);

// What a finding rests on. A figure below what healthy hardware gives (a rate, a latency, a
// link) may be noise or a neighbour's load: it is re-measured before it drains anything. An
// observed fault (a wrong answer, a failed test, error counters, a missing device, a stall, a
// node Slurm lost) is not made better by measuring again: it drains at once.
enum class Evidence { fault, figure };
std::string_view to_string(Evidence evidence);

// Where a FAIL that rests on a figure stands (rules/model/confirmation.hpp). Only `not_needed` (an
// observed fault, or not a FAIL) and `confirmed` FAILs drain a node.
enum class Confirmation {
    not_needed,
    awaiting,        // measured once: FAIL, not drained until a confirmation run measures it again
    confirmed,       // the confirmation run measured it FAIL again
    not_reproduced,  // the confirmation run measured it within its band: a WARN
};
std::string_view to_string(Confirmation confirmation);

struct Finding {
    std::string node;
    int rank = 0;
    std::optional<int> gpu;  // the rank's bound GPU (CUDA ordinal as the rank saw it)
    std::string gpu_uuid;    // its UUID: what names the GPU's telemetry under any visibility
    std::string test;
    std::string metric;  // empty for a finding about the test itself (failed, errored, no result)
    std::optional<double> value;
    std::string unit;
    std::optional<double> nominal;
    Level level = Level::pass;
    // Who must act: only hardware findings fail a node and drain it; configuration and software
    // findings make the run an error (exit 2) with what to fix.
    Cause cause = Cause::hardware;
    std::string reason;  // one line with the numbers: "stream.triad_gbs 4.1 GB/s is 0.52 of nominal 7.9 (fail below 0.60)"
    FindingSource source = FindingSource::threshold;
    ReasonCode code = ReasonCode::unclassified;  // what kind of check it failed, for machines
    // The edge of the band the value crossed, in the value's unit (a fraction of nominal or of the
    // fleet median turned into GB/s, ...): the figure the value had to reach at this finding's level.
    std::optional<double> bound;
    std::optional<double> reference;   // the fleet median or the baseline value the finding compares with
    std::string explanation;           // what the telemetry showed in the test's window ("" when nothing known)
    bool telemetry_coincided = false;  // the explanation names something abnormal (else: "looks normal")
    Evidence evidence = Evidence::fault;
    Confirmation confirmation = Confirmation::not_needed;
    // The other nodes whose measurements the finding rests on: the far end of a slow link, the
    // far ends of a slow node's evidence links. A confirmation run re-measures them as well.
    std::vector<std::string> peers;
    // A link finding's matrix (LinkMatrix::name: "allpairs", "tcp_bandwidth on eth0"): which links
    // a confirmation measures again. Empty for any other finding.
    std::string link_matrix;

    // A hardware FAIL resting on a figure: re-measured before it drains.
    bool needs_confirmation() const {
        return level == Level::fail && cause == Cause::hardware && evidence == Evidence::figure;
    }
    // A hardware FAIL that drains its node: an observed fault, or a figure measured twice.
    bool drains() const {
        return level == Level::fail && cause == Cause::hardware &&
               (evidence == Evidence::fault || confirmation == Confirmation::confirmed);
    }

    std::optional<double> usable_fraction() const;  // value / nominal when both are known and nominal > 0
};

// The code of a finding whose rule sets none of its own: the one its source stands for.
ReasonCode reason_code_of(FindingSource source);

// A finding about `who` (node, rank and GPU identity from the observations); its code is its
// source's (reason_code_of), a rule with finer codes sets its own.
Finding make_finding(const RankIdentity& who, std::string test, Level level, std::string reason,
                     FindingSource source = FindingSource::threshold);
// The same with the metric's name, value, unit and nominal.
Finding make_metric_finding(const RankIdentity& who, const std::string& test, const Metric& metric, Level level,
                            std::string reason, FindingSource source = FindingSource::threshold);

// Moves `more` onto the end of `findings`: how the rules' findings are gathered.
void append(std::vector<Finding>& findings, std::vector<Finding> more);

// Numbers as the reasons print them: 3 significant digits, no exponent below a million.
std::string format_number(double value);
std::string with_unit(double value, const std::string& unit);  // "4.1 GB/s"

}  // namespace shakedown::analysis
