#include "analysis/rules/model/finding.hpp"

#include <fmt/format.h>

#include <cmath>
#include <iterator>

namespace shakedown::analysis {

std::string_view to_string(Level level) {
    switch (level) {
    case Level::pass: return "pass";
    case Level::warn: return "warn";
    case Level::fail: return "fail";
    }
    return "unknown";
}

std::string_view to_string(FindingSource source) {
    switch (source) {
    case FindingSource::threshold: return "threshold";
    case FindingSource::fleet: return "fleet";
    case FindingSource::baseline: return "baseline";
    case FindingSource::links: return "links";
    case FindingSource::collective: return "collective";
    case FindingSource::port_counters: return "port_counters";
    case FindingSource::credibility: return "credibility";
    case FindingSource::stall: return "stall";
    case FindingSource::scheduler: return "scheduler";
    case FindingSource::hidden_faults: return "hidden_faults";
    case FindingSource::pkeys: return "pkeys";
    case FindingSource::scaling: return "scaling";
    case FindingSource::software_stack: return "software_stack";
    case FindingSource::configuration_drift: return "configuration_drift";
    }
    return "unknown";
}

ReasonCode reason_code_of(FindingSource source) {
    switch (source) {
    case FindingSource::fleet: return ReasonCode::fleet_outlier;
    case FindingSource::baseline: return ReasonCode::baseline_regression;
    case FindingSource::links: return ReasonCode::slow_link;
    case FindingSource::collective: return ReasonCode::slow_rank;
    case FindingSource::port_counters: return ReasonCode::port_counter_rise;
    case FindingSource::credibility: return ReasonCode::not_credible;
    case FindingSource::stall: return ReasonCode::rank_stalled;
    case FindingSource::scheduler: return ReasonCode::node_down;
    case FindingSource::hidden_faults: return ReasonCode::gpu_health_fault;
    case FindingSource::pkeys: return ReasonCode::pkey_mismatch;
    case FindingSource::scaling: return ReasonCode::scaling_shortfall;
    case FindingSource::software_stack: return ReasonCode::blas_kernel_narrow;
    case FindingSource::configuration_drift: return ReasonCode::configuration_drift;
    case FindingSource::threshold: break;  // every check there sets its own
    }
    return ReasonCode::unclassified;
}

std::string_view to_string(Evidence evidence) {
    switch (evidence) {
    case Evidence::fault: return "fault";
    case Evidence::figure: return "figure";
    }
    return "unknown";
}

std::string_view to_string(Confirmation confirmation) {
    switch (confirmation) {
    case Confirmation::not_needed: return "not_needed";
    case Confirmation::awaiting: return "awaiting";
    case Confirmation::confirmed: return "confirmed";
    case Confirmation::not_reproduced: return "not_reproduced";
    }
    return "unknown";
}

std::optional<double> Finding::usable_fraction() const {
    if (!value || !nominal || *nominal <= 0.0) return std::nullopt;
    return *value / *nominal;
}

Finding make_finding(const RankIdentity& who, std::string test, Level level, std::string reason, FindingSource source) {
    Finding finding;
    finding.node = who.node;
    finding.rank = who.rank;
    finding.gpu = who.gpu;
    finding.gpu_uuid = who.gpu_uuid;
    finding.test = std::move(test);
    finding.level = level;
    finding.reason = std::move(reason);
    finding.source = source;
    finding.code = reason_code_of(source);
    return finding;
}

Finding make_metric_finding(const RankIdentity& who, const std::string& test, const Metric& metric, Level level,
                            std::string reason, FindingSource source) {
    Finding finding = make_finding(who, test, level, std::move(reason), source);
    finding.metric = metric.name;
    finding.value = metric.value;
    finding.unit = metric.unit;
    finding.nominal = metric.nominal;
    return finding;
}

std::string format_number(double value) {
    if (!std::isfinite(value)) return fmt::format("{}", value);
    const double magnitude = std::fabs(value);
    if (magnitude >= 100.0 && magnitude < 1e6) return fmt::format("{:.0f}", value);
    return fmt::format("{:.3g}", value);
}

std::string with_unit(double value, const std::string& unit) {
    return unit.empty() ? format_number(value) : format_number(value) + " " + unit;
}

void append(std::vector<Finding>& findings, std::vector<Finding> more) {
    findings.insert(findings.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
}

}  // namespace shakedown::analysis
