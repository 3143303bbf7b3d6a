// Stable reason codes: what kind of check a finding failed, for machines (summary.json, junit.xml,
// exports) where the one-line reason is for people. The list is declared here once; a code's
// string never changes meaning (docs/analyzer.md, "Reason codes", lists them).
#pragma once

#include <optional>
#include <string_view>
#include <vector>

namespace shakedown::analysis {

enum class ReasonCode {
    test_failed,             // the test reported a failure (a wrong answer, a missing device)
    test_errored,            // the test ended with an error
    no_result,               // the run listed the test, the rank finished without a result
    not_a_number,            // the figure is NaN or infinite
    below_bound,             // below an absolute fail_below / warn_below
    above_bound,             // above an absolute fail_above / warn_above
    below_nominal_fraction,  // usable / nominal below the fraction_of_nominal band
    below_calibrated,        // below the band of what healthy hardware of the part gives
    nominal_not_credible,    // far above its nominal: the nominal is wrong
    fleet_outlier,           // beyond the fleet median by the fleet_outlier band
    baseline_regression,     // worse than the baseline run by more than the tolerance
    slow_node_links,         // a node's links slower than the fabric's
    slow_link,               // one link slower than the fabric's
    slow_switch_group,       // the links out of a group of nodes (a switch) slower
    slow_rank,               // a rank's collective time many times the others'
    not_credible,            // above a physical bound: the measurement is wrong
    rank_stalled,            // a rank stopped progressing while others waited
    rank_froze,              // a rank's whole process stood still inside a test, shorter than its deadline
    node_down,               // Slurm marked the node down or drained during the job
    port_counter_rise,       // RDMA port error counters rose
    gpu_health_fault,        // a GPU health counter, Xid event or PCIe AER error
    profile_mismatch,        // the node differs from the expected profile
    pkey_mismatch,           // an RDMA port's PKey table differs from the other nodes'
    congestion_impact,       // latency or bandwidth many times worse beside congestors than alone
    slow_alone,              // a rank's training step alone much slower than the median rank's
    scaling_shortfall,       // a data-parallel efficiency below its prediction, no slow part to blame
    blas_kernel_narrow,      // the host BLAS runs kernels narrower than the CPU by misdetection or force
    configuration_drift,     // a node's driver, library, kernel or firmware version differs from the fleet's
    unclassified,            // a rule that declares no code of its own yet
};

std::string_view to_string(ReasonCode code);
std::optional<ReasonCode> reason_code_from_string(std::string_view text);
const std::vector<ReasonCode>& all_reason_codes();

}  // namespace shakedown::analysis
