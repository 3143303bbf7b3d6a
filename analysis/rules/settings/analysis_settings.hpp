// The analysis settings of a thresholds file besides the per-metric rules: the fleet outlier
// population, the baseline tolerance, the telemetry limits used for explanations, the link
// localization factor, the slow-rank ratio, the node price and the RDMA port-counter allowances. Every field is optional so
// that a user file overrides only what it names; the accessors give the value in force (the built-in default.yaml sets each
// one; the fallbacks here only matter for a file parsed on its own).
#pragma once

#include "analysis/rules/settings/ownership_file.hpp"
#include "analysis/rules/settings/yaml_fields.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace shakedown::analysis {

// The link rule's bands (rules/links/link_statistics.hpp): a link (a node) below `*_warn` of its
// reference WARNs, below `*_fail` FAILs, and either only when it is also beyond the noise margin:
// at least `noise_sigmas` measurement-noise sigmas below its reference, more where many figures
// are judged at once (so that a healthy fabric of any size flags a figure with probability at
// most `false_fail_rate`). A reference needs at least `min_reference_links` links that touch
// neither end, else every other link is used (fleets of 3 or 4 nodes).
struct LinkBands {
    double link_warn = 0.90;
    double link_fail = 0.70;
    double node_warn = 0.90;
    double node_fail = 0.70;
    double noise_sigmas = 3.0;
    double false_fail_rate = 0.001;
    int min_reference_links = 3;
};

// The largest node price accepted, per hour or per month, in any currency: far above any node's
// rent, and low enough that a fleet's price for a long task stays a finite number (1e308 printed
// "inf").
inline constexpr double max_node_price = 1e9;

struct AnalysisSettings {
    // fleet: {min_peers: N, enabled: true} — fewer units (GPUs, or nodes without GPUs) than N: no
    // fleet judgment; enabled: false switches the rule off (co-located virtual nodes share cores).
    std::optional<int> fleet_min_peers;
    std::optional<bool> fleet_enabled;
    // baseline: {tolerance: 0.10, level: warn|fail}
    std::optional<double> baseline_tolerance;
    std::optional<bool> baseline_regression_fails;
    // telemetry: {temperature_limit_c, min_throttle_share, min_clock_fraction}
    std::optional<double> temperature_limit_c;
    std::optional<double> min_throttle_share;  // throttle shares below this are not mentioned
    std::optional<double> min_clock_fraction;  // SM clock median below this fraction of max is mentioned
    // links: {warn_fraction: W, slow_fraction: F, node_warn_fraction, node_fail_fraction,
    // noise_sigmas, false_fail_rate, min_reference_links} — see LinkBands; slow_fraction is the
    // link FAIL band.
    std::optional<double> link_warn_fraction;
    std::optional<double> link_slow_fraction;
    std::optional<double> node_warn_fraction;
    std::optional<double> node_fail_fraction;
    std::optional<double> link_noise_sigmas;
    std::optional<double> link_false_fail_rate;
    std::optional<int> link_min_reference_links;
    // collectives: {slow_rank_ratio: R, fail_ratio: R2} — mpi_coll's slowest rank at R x the other ranks' median.
    std::optional<double> slow_rank_ratio;
    std::optional<double> slow_rank_fail_ratio;
    // price: {per_node_hour: X} or {per_node_month: X}, currency: "EUR"
    std::optional<double> price_per_node_hour;  // each at most max_node_price
    std::optional<double> price_per_node_month;
    std::optional<std::string> currency;
    // price.task_tokens: the standard task the Workload section prices (tokens of train_step).
    std::optional<double> task_tokens;
    // price.task_fp64_flop: the standard FP64 task the FP64 section prices (FLOP of DGEMM).
    std::optional<double> task_fp64_flop;
    // price.energy_per_kwh: what a kWh costs (the Workload section's task energy), at most max_energy_price.
    std::optional<double> energy_per_kwh;
    // --ownership: what owning a node costs, for the Price section's rent against buy.
    std::optional<OwnershipInputs> ownership;
    // port_counters: {enabled: true, allowed_increase: {symbol_error: 10, ...}} — how much an RDMA
    // error counter (sysfs name) may rise over the whole run before the node FAILs; 0 when unnamed.
    std::optional<bool> port_counters_enabled;
    std::map<std::string, double> port_counter_allowances;
    // port_counters.warn_counters: [link_error_recovery] — error counters whose rise above the
    // allowance WARNs instead of FAILing (a link that retrained but stayed up).
    std::optional<std::vector<std::string>> port_counter_warn_counters;
    // gpu_health: {enabled: true, pcie_replay_fail_rise: 1000, nvlink_expected_links: 18} — the
    // hidden-fault rule (rules/health/hidden_fault_rule.hpp): a PCIe replay rise above the first FAILs
    // (any rise WARNs); fewer active NVLink links than the second FAILs where the profile sets no
    // gpu.nvlinks (unset: the spec table's count for the part, else the links NVML reports).
    std::optional<bool> gpu_health_enabled;
    std::optional<double> pcie_replay_fail_rise;
    std::optional<double> nvlink_expected_links;
    // gpu_health.aer_correctable_warn_rise: PCIe AER correctable errors a device may gain in a run
    // before it WARNs (fatal: any rise FAILs; non-fatal: any rise WARNs).
    std::optional<double> aer_correctable_warn_rise;
    // gpu_health.nvme_wear_warn_percent: an NVMe drive's percentage used (its own estimate of its
    // rated endurance) at or above which it WARNs (rules/health/nvme_health_rule.hpp).
    std::optional<double> nvme_wear_warn_percent;
    // congestion: {warn_impact: 4, fail_impact: 10} — the congestion rule (rules/links/congestion_rule.hpp):
    // a node's (or, when no node stands out, the job's) impact factor at or above them.
    std::optional<double> congestion_warn_impact;
    std::optional<double> congestion_fail_impact;
    // scaling: {slow_rank_ratio: 1.25, slow_rank_fail_ratio: 1.5, link_warn_fraction: 0.75,
    // link_fail_fraction: 0.5, shortfall_warn: 0.85} — train_step's scaling rule
    // (rules/figures/scaling_rule.hpp): a rank whose step alone takes R x the median rank's, a node whose
    // link figure is below the fraction of the fabric median, an efficiency below the fraction of
    // its prediction with neither to explain it.
    std::optional<double> scaling_slow_rank_ratio;
    std::optional<double> scaling_slow_rank_fail_ratio;
    std::optional<double> scaling_link_warn_fraction;
    std::optional<double> scaling_link_fail_fraction;
    std::optional<double> scaling_shortfall_warn_fraction;
    std::optional<double> scaling_noise_margin_factor;  // scaling.noise_margin: bands widen to this x the step scatter

    int min_peers() const { return fleet_min_peers.value_or(3); }
    bool fleet_rule_enabled() const { return fleet_enabled.value_or(true); }
    double tolerance() const { return baseline_tolerance.value_or(0.10); }
    bool regression_fails() const { return baseline_regression_fails.value_or(false); }
    double temperature_limit() const { return temperature_limit_c.value_or(75.0); }
    double throttle_share() const { return min_throttle_share.value_or(0.05); }
    double clock_fraction() const { return min_clock_fraction.value_or(0.9); }
    double slow_fraction() const { return link_slow_fraction.value_or(LinkBands{}.link_fail); }
    // The bands in force; a WARN band a user file left below its FAIL band is raised to it.
    LinkBands link_bands() const;
    double rank_ratio() const { return slow_rank_ratio.value_or(1.5); }
    double rank_fail_ratio() const { return slow_rank_fail_ratio.value_or(3.0); }
    std::string currency_text() const { return currency.value_or(""); }
    double task_token_count() const { return task_tokens.value_or(1e9); }
    double task_fp64_flop_count() const { return task_fp64_flop.value_or(1e18); }
    bool port_counter_rule_enabled() const { return port_counters_enabled.value_or(true); }
    bool gpu_health_rule_enabled() const { return gpu_health_enabled.value_or(true); }
    double pcie_replay_fail_rise_or_default() const { return pcie_replay_fail_rise.value_or(1000.0); }
    double aer_correctable_warn_rise_or_default() const { return aer_correctable_warn_rise.value_or(100.0); }
    double nvme_wear_warn_percent_or_default() const { return nvme_wear_warn_percent.value_or(80.0); }
    double congestion_fail() const { return congestion_fail_impact.value_or(10.0); }
    // A WARN band a user file left above the FAIL band is lowered to it.
    double congestion_warn() const { return std::min(congestion_warn_impact.value_or(4.0), congestion_fail()); }
    double scaling_slow_rank_fail() const { return scaling_slow_rank_fail_ratio.value_or(1.5); }
    // A WARN ratio a user file left above the FAIL ratio is lowered to it; a WARN fraction below
    // the FAIL fraction raised to it.
    double scaling_slow_rank_warn() const {
        return std::min(scaling_slow_rank_ratio.value_or(1.25), scaling_slow_rank_fail());
    }
    double scaling_link_fail() const { return scaling_link_fail_fraction.value_or(0.5); }
    double scaling_link_warn() const { return std::max(scaling_link_warn_fraction.value_or(0.75), scaling_link_fail()); }
    double scaling_shortfall_warn() const { return scaling_shortfall_warn_fraction.value_or(0.85); }
    double scaling_noise_margin() const { return scaling_noise_margin_factor.value_or(2.0); }
    double allowed_increase(const std::string& counter) const;
    bool port_counter_warns(const std::string& counter) const;

    // The node price per hour, if any (a month is 730 hours: 8760 / 12).
    std::optional<double> node_hour_price() const;

    // Every field `other` sets replaces ours.
    void merge(const AnalysisSettings& other);
};

inline constexpr double hours_per_month = 730.0;

// Whether `key` is a settings section (fleet, baseline, telemetry, links, collectives, price,
// port_counters, gpu_health, congestion, scaling).
bool is_settings_section(std::string_view key);
// Reads one settings section into `settings`; unknown keys and bad values are rejected.
void parse_settings_section(const YamlFields& fields, const std::string& section, const YAML::Node& node,
                            AnalysisSettings& settings);

}  // namespace shakedown::analysis
