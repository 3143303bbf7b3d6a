#include "analysis/rules/model/reason_code.hpp"

namespace shakedown::analysis {

std::string_view to_string(ReasonCode code) {
    switch (code) {
    case ReasonCode::test_failed: return "test_failed";
    case ReasonCode::test_errored: return "test_errored";
    case ReasonCode::no_result: return "no_result";
    case ReasonCode::not_a_number: return "not_a_number";
    case ReasonCode::below_bound: return "below_bound";
    case ReasonCode::above_bound: return "above_bound";
    case ReasonCode::below_nominal_fraction: return "below_nominal_fraction";
    case ReasonCode::below_calibrated: return "below_calibrated";
    case ReasonCode::nominal_not_credible: return "nominal_not_credible";
    case ReasonCode::fleet_outlier: return "fleet_outlier";
    case ReasonCode::baseline_regression: return "baseline_regression";
    case ReasonCode::slow_node_links: return "slow_node_links";
    case ReasonCode::slow_link: return "slow_link";
    case ReasonCode::slow_switch_group: return "slow_switch_group";
    case ReasonCode::slow_rank: return "slow_rank";
    case ReasonCode::not_credible: return "not_credible";
    case ReasonCode::rank_stalled: return "rank_stalled";
    case ReasonCode::rank_froze: return "rank_froze";
    case ReasonCode::node_down: return "node_down";
    case ReasonCode::port_counter_rise: return "port_counter_rise";
    case ReasonCode::gpu_health_fault: return "gpu_health_fault";
    case ReasonCode::profile_mismatch: return "profile_mismatch";
    case ReasonCode::pkey_mismatch: return "pkey_mismatch";
    case ReasonCode::congestion_impact: return "congestion_impact";
    case ReasonCode::slow_alone: return "slow_alone";
    case ReasonCode::scaling_shortfall: return "scaling_shortfall";
    case ReasonCode::blas_kernel_narrow: return "blas_kernel_narrow";
    case ReasonCode::configuration_drift: return "configuration_drift";
    case ReasonCode::unclassified: return "unclassified";
    }
    return "unclassified";
}

const std::vector<ReasonCode>& all_reason_codes() {
    static const std::vector<ReasonCode> codes = [] {
        std::vector<ReasonCode> list;
        for (int code = 0; code <= static_cast<int>(ReasonCode::unclassified); ++code)
            list.push_back(static_cast<ReasonCode>(code));
        return list;
    }();
    return codes;
}

std::optional<ReasonCode> reason_code_from_string(std::string_view text) {
    for (ReasonCode code : all_reason_codes())
        if (to_string(code) == text) return code;
    return std::nullopt;
}

}  // namespace shakedown::analysis
