// The analysis settings of a thresholds file besides the per-metric rules: the fleet outlier
// population, the baseline tolerance, the telemetry limits used for explanations, the link
// localization factor, the slow-rank ratio, the node price and the RDMA port-counter allowances. Every field is optional so that a
// user file overrides only what it names; the accessors give the value in force (the built-in
// default.yaml sets each one; the fallbacks here only matter for a file parsed on its own).
#pragma once

#include "analysis/rules/yaml_fields.hpp"

#include <map>
#include <optional>
#include <string>

namespace shakedown::analysis {

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
    std::optional<double> min_throttle_share;   // throttle shares below this are not mentioned
    std::optional<double> min_clock_fraction;   // SM clock median below this fraction of max is mentioned
    // links: {slow_fraction: F} — a link (or a node's links) below F x its peers' median is slow.
    std::optional<double> link_slow_fraction;
    // collectives: {slow_rank_ratio: R, fail_ratio: R2} — mpi_coll's slowest rank at R x the other ranks' median.
    std::optional<double> slow_rank_ratio;
    std::optional<double> slow_rank_fail_ratio;
    // price: {per_node_hour: X} or {per_node_month: X}, currency: "EUR"
    std::optional<double> price_per_node_hour;
    std::optional<double> price_per_node_month;
    std::optional<std::string> currency;
    // port_counters: {enabled: true, allowed_increase: {symbol_error: 10, ...}} — how much an RDMA
    // error counter (sysfs name) may rise over the whole run before the node FAILs; 0 when unnamed.
    std::optional<bool> port_counters_enabled;
    std::map<std::string, double> port_counter_allowances;

    int min_peers() const { return fleet_min_peers.value_or(3); }
    bool fleet_rule_enabled() const { return fleet_enabled.value_or(true); }
    double tolerance() const { return baseline_tolerance.value_or(0.10); }
    bool regression_fails() const { return baseline_regression_fails.value_or(false); }
    double temperature_limit() const { return temperature_limit_c.value_or(75.0); }
    double throttle_share() const { return min_throttle_share.value_or(0.05); }
    double clock_fraction() const { return min_clock_fraction.value_or(0.9); }
    double slow_fraction() const { return link_slow_fraction.value_or(0.7); }
    double rank_ratio() const { return slow_rank_ratio.value_or(1.5); }
    double rank_fail_ratio() const { return slow_rank_fail_ratio.value_or(3.0); }
    std::string currency_text() const { return currency.value_or(""); }
    bool port_counter_rule_enabled() const { return port_counters_enabled.value_or(true); }
    double allowed_increase(const std::string& counter) const;

    // The node price per hour, if any (a month is 730 hours: 8760 / 12).
    std::optional<double> node_hour_price() const;

    // Every field `other` sets replaces ours.
    void merge(const AnalysisSettings& other);
};

inline constexpr double hours_per_month = 730.0;

// Whether `key` is a settings section (fleet, baseline, telemetry, links, collectives, price,
// port_counters).
bool is_settings_section(std::string_view key);
// Reads one settings section into `settings`; unknown keys and bad values are rejected.
void parse_settings_section(const YamlFields& fields, const std::string& section, const YAML::Node& node,
                            AnalysisSettings& settings);

}  // namespace shakedown::analysis
