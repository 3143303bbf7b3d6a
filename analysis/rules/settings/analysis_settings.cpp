#include "analysis/rules/settings/analysis_settings.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <functional>

namespace shakedown::analysis {
namespace {

// The congestion rule's section: it judges both congestion tests, so it is named after the rule, not
// a test (tests/layers/check_name_literals.sh is told by the marker).
constexpr std::string_view congestion_section = "congestion";  // names-check: a settings section, not a test key

constexpr std::array<std::string_view, 10> sections{"fleet",         "baseline",    "telemetry",
                                                    "links",         "collectives", "price",
                                                    "port_counters", "gpu_health",  congestion_section,
                                                    "scaling"};

// One key of one section: how to read it into the settings.
struct SettingKey {
    std::string_view section;
    std::string_view key;
    std::function<void(const YamlFields&, const YAML::Node&, const std::string&, AnalysisSettings&)> read;
};

auto fraction_in(std::optional<double> AnalysisSettings::*field, double most) {
    return [field, most](const YamlFields& fields, const YAML::Node& node, const std::string& what, AnalysisSettings& s) {
        const double value = fields.positive(node, what);
        if (value > most) fields.reject(node, fmt::format("{}: must be at most {}, got {}", what, most, value));
        s.*field = value;
    };
}

auto positive_in(std::optional<double> AnalysisSettings::*field) {
    return [field](const YamlFields& fields, const YAML::Node& node, const std::string& what, AnalysisSettings& s) {
        s.*field = fields.positive(node, what);
    };
}

auto price_in(std::optional<double> AnalysisSettings::*field) {
    return [field](const YamlFields& fields, const YAML::Node& node, const std::string& what, AnalysisSettings& s) {
        const double value = fields.positive(node, what);
        if (value > max_node_price)
            fields.reject(node, fmt::format("{}: expected a price up to {:g}, got {}", what, max_node_price, node.Scalar()));
        s.*field = value;
    };
}

const std::vector<SettingKey>& setting_keys() {
    static const std::vector<SettingKey> keys{
        {"fleet", "min_peers",
         [](const YamlFields& fields, const YAML::Node& node, const std::string& what, AnalysisSettings& s) {
             const double value = fields.number(node, what);
             if (value < 2 || value > 1e6 || value != static_cast<int>(value))
                 fields.reject(node, fmt::format("{}: expected a whole number of at least 2, got {}", what, node.Scalar()));
             s.fleet_min_peers = static_cast<int>(value);
         }},
        {"fleet", "enabled",
         [](const YamlFields& fields, const YAML::Node& node, const std::string& what, AnalysisSettings& s) {
             s.fleet_enabled = fields.choice(node, what, {"true", "false"}) == "true";
         }},
        {"baseline", "tolerance", fraction_in(&AnalysisSettings::baseline_tolerance, 1.0)},
        {"baseline", "level",
         [](const YamlFields& fields, const YAML::Node& node, const std::string& what, AnalysisSettings& s) {
             s.baseline_regression_fails = fields.choice(node, what, {"warn", "fail"}) == "fail";
         }},
        {"telemetry", "temperature_limit_c", positive_in(&AnalysisSettings::temperature_limit_c)},
        {"telemetry", "min_throttle_share", fraction_in(&AnalysisSettings::min_throttle_share, 1.0)},
        {"telemetry", "min_clock_fraction", fraction_in(&AnalysisSettings::min_clock_fraction, 1.0)},
        {"links", "warn_fraction", fraction_in(&AnalysisSettings::link_warn_fraction, 1.0)},
        {"links", "slow_fraction", fraction_in(&AnalysisSettings::link_slow_fraction, 1.0)},
        {"links", "node_warn_fraction", fraction_in(&AnalysisSettings::node_warn_fraction, 1.0)},
        {"links", "node_fail_fraction", fraction_in(&AnalysisSettings::node_fail_fraction, 1.0)},
        {"links", "noise_sigmas",
         [](const YamlFields& fields, const YAML::Node& node, const std::string& what, AnalysisSettings& s) {
             const double value = fields.number(node, what);
             if (value < 0 || value > 20) fields.reject(node, fmt::format("{}: expected 0 to 20, got {}", what, value));
             s.link_noise_sigmas = value;
         }},
        {"links", "false_fail_rate",
         [](const YamlFields& fields, const YAML::Node& node, const std::string& what, AnalysisSettings& s) {
             const double value = fields.positive(node, what);
             if (value >= 0.5) fields.reject(node, fmt::format("{}: must be below 0.5, got {}", what, value));
             s.link_false_fail_rate = value;
         }},
        {"links", "min_reference_links",
         [](const YamlFields& fields, const YAML::Node& node, const std::string& what, AnalysisSettings& s) {
             const double value = fields.number(node, what);
             if (value < 1 || value > 1e6 || value != static_cast<int>(value))
                 fields.reject(node, fmt::format("{}: expected a whole number of at least 1, got {}", what, node.Scalar()));
             s.link_min_reference_links = static_cast<int>(value);
         }},
        {"collectives", "slow_rank_ratio", positive_in(&AnalysisSettings::slow_rank_ratio)},
        {"collectives", "fail_ratio", positive_in(&AnalysisSettings::slow_rank_fail_ratio)},
        {"price", "per_node_hour", price_in(&AnalysisSettings::price_per_node_hour)},
        {"price", "per_node_month", price_in(&AnalysisSettings::price_per_node_month)},
        {"price", "task_tokens", positive_in(&AnalysisSettings::task_tokens)},
        {"price", "task_fp64_flop", positive_in(&AnalysisSettings::task_fp64_flop)},
        {"price", "energy_per_kwh",
         [](const YamlFields& fields, const YAML::Node& node, const std::string& what, AnalysisSettings& s) {
             const double value = fields.positive(node, what);
             if (value > max_energy_price)
                 fields.reject(node, fmt::format("{}: expected a price per kWh up to {:g}, got {}", what, max_energy_price,
                                                 node.Scalar()));
             s.energy_per_kwh = value;
         }},
        {"price", "currency",
         [](const YamlFields& fields, const YAML::Node& node, const std::string& what, AnalysisSettings& s) {
             if (!node.IsScalar() || node.Scalar().size() > 16)
                 fields.reject(node,
                               fmt::format("{}: expected a short text such as EUR, got {}", what, YamlFields::shown(node)));
             s.currency = node.Scalar();
         }},
        {"port_counters", "enabled",
         [](const YamlFields& fields, const YAML::Node& node, const std::string& what, AnalysisSettings& s) {
             s.port_counters_enabled = fields.choice(node, what, {"true", "false"}) == "true";
         }},
        {"port_counters", "allowed_increase",
         [](const YamlFields& fields, const YAML::Node& node, const std::string& what, AnalysisSettings& s) {
             if (!node.IsMap())
                 fields.reject(node, fmt::format("{}: expected a map of counter names (symbol_error, ...) to counts, got {}",
                                                 what, YamlFields::shown(node)));
             for (const auto& item : node) {
                 const std::string counter = fields.key(item.first, what);
                 const double allowed = fields.number(item.second, what + "." + counter);
                 if (allowed < 0)
                     fields.reject(item.second, fmt::format("{}.{}: must not be negative, got {}", what, counter, allowed));
                 s.port_counter_allowances[counter] = allowed;
             }
         }},
        {"port_counters", "warn_counters",
         [](const YamlFields& fields, const YAML::Node& node, const std::string& what, AnalysisSettings& s) {
             if (!node.IsSequence())
                 fields.reject(node, fmt::format("{}: expected a list of counter names (link_error_recovery, ...), got {}",
                                                 what, YamlFields::shown(node)));
             std::vector<std::string> counters;
             for (const auto& item : node) counters.push_back(fields.key(item, what));
             s.port_counter_warn_counters = std::move(counters);
         }},
        {"gpu_health", "enabled",
         [](const YamlFields& fields, const YAML::Node& node, const std::string& what, AnalysisSettings& s) {
             s.gpu_health_enabled = fields.choice(node, what, {"true", "false"}) == "true";
         }},
        {"gpu_health", "pcie_replay_fail_rise", positive_in(&AnalysisSettings::pcie_replay_fail_rise)},
        {"gpu_health", "nvlink_expected_links", positive_in(&AnalysisSettings::nvlink_expected_links)},
        {"gpu_health", "aer_correctable_warn_rise", positive_in(&AnalysisSettings::aer_correctable_warn_rise)},
        {"gpu_health", "nvme_wear_warn_percent", positive_in(&AnalysisSettings::nvme_wear_warn_percent)},
        {congestion_section, "warn_impact", positive_in(&AnalysisSettings::congestion_warn_impact)},
        {congestion_section, "fail_impact", positive_in(&AnalysisSettings::congestion_fail_impact)},
        {"scaling", "slow_rank_ratio", positive_in(&AnalysisSettings::scaling_slow_rank_ratio)},
        {"scaling", "slow_rank_fail_ratio", positive_in(&AnalysisSettings::scaling_slow_rank_fail_ratio)},
        {"scaling", "link_warn_fraction", fraction_in(&AnalysisSettings::scaling_link_warn_fraction, 1.0)},
        {"scaling", "link_fail_fraction", fraction_in(&AnalysisSettings::scaling_link_fail_fraction, 1.0)},
        {"scaling", "shortfall_warn", fraction_in(&AnalysisSettings::scaling_shortfall_warn_fraction, 1.0)},
        {"scaling", "noise_margin", positive_in(&AnalysisSettings::scaling_noise_margin_factor)},
    };
    return keys;
}

}  // namespace

double AnalysisSettings::allowed_increase(const std::string& counter) const {
    const auto found = port_counter_allowances.find(counter);
    return found == port_counter_allowances.end() ? 0.0 : found->second;
}

bool AnalysisSettings::port_counter_warns(const std::string& counter) const {
    const auto& warns = port_counter_warn_counters;
    if (!warns) return counter == "link_error_recovery";  // as default.yaml declares it
    return std::find(warns->begin(), warns->end(), counter) != warns->end();
}

LinkBands AnalysisSettings::link_bands() const {
    const LinkBands defaults;
    LinkBands bands;
    bands.link_fail = link_slow_fraction.value_or(defaults.link_fail);
    bands.link_warn = std::max(link_warn_fraction.value_or(defaults.link_warn), bands.link_fail);
    bands.node_fail = node_fail_fraction.value_or(defaults.node_fail);
    bands.node_warn = std::max(node_warn_fraction.value_or(defaults.node_warn), bands.node_fail);
    bands.noise_sigmas = link_noise_sigmas.value_or(defaults.noise_sigmas);
    bands.false_fail_rate = link_false_fail_rate.value_or(defaults.false_fail_rate);
    bands.min_reference_links = link_min_reference_links.value_or(defaults.min_reference_links);
    return bands;
}

std::optional<double> AnalysisSettings::node_hour_price() const {
    if (price_per_node_hour) return price_per_node_hour;
    if (price_per_node_month) return *price_per_node_month / hours_per_month;
    return std::nullopt;
}

void AnalysisSettings::merge(const AnalysisSettings& other) {
    auto take = [](auto& mine, const auto& theirs) {
        if (theirs) mine = theirs;
    };
    take(fleet_min_peers, other.fleet_min_peers);
    take(fleet_enabled, other.fleet_enabled);
    take(baseline_tolerance, other.baseline_tolerance);
    take(baseline_regression_fails, other.baseline_regression_fails);
    take(temperature_limit_c, other.temperature_limit_c);
    take(min_throttle_share, other.min_throttle_share);
    take(min_clock_fraction, other.min_clock_fraction);
    take(link_warn_fraction, other.link_warn_fraction);
    take(link_slow_fraction, other.link_slow_fraction);
    take(node_warn_fraction, other.node_warn_fraction);
    take(node_fail_fraction, other.node_fail_fraction);
    take(link_noise_sigmas, other.link_noise_sigmas);
    take(link_false_fail_rate, other.link_false_fail_rate);
    take(link_min_reference_links, other.link_min_reference_links);
    take(slow_rank_ratio, other.slow_rank_ratio);
    take(slow_rank_fail_ratio, other.slow_rank_fail_ratio);
    // A price given per hour or per month replaces both forms of the other's price.
    if (other.price_per_node_hour || other.price_per_node_month) {
        price_per_node_hour = other.price_per_node_hour;
        price_per_node_month = other.price_per_node_month;
    }
    take(currency, other.currency);
    take(task_tokens, other.task_tokens);
    take(task_fp64_flop, other.task_fp64_flop);
    take(energy_per_kwh, other.energy_per_kwh);
    take(ownership, other.ownership);
    take(port_counters_enabled, other.port_counters_enabled);
    take(port_counter_warn_counters, other.port_counter_warn_counters);
    take(gpu_health_enabled, other.gpu_health_enabled);
    take(pcie_replay_fail_rise, other.pcie_replay_fail_rise);
    take(nvlink_expected_links, other.nvlink_expected_links);
    take(aer_correctable_warn_rise, other.aer_correctable_warn_rise);
    take(nvme_wear_warn_percent, other.nvme_wear_warn_percent);
    take(congestion_warn_impact, other.congestion_warn_impact);
    take(congestion_fail_impact, other.congestion_fail_impact);
    take(scaling_slow_rank_ratio, other.scaling_slow_rank_ratio);
    take(scaling_slow_rank_fail_ratio, other.scaling_slow_rank_fail_ratio);
    take(scaling_link_warn_fraction, other.scaling_link_warn_fraction);
    take(scaling_link_fail_fraction, other.scaling_link_fail_fraction);
    take(scaling_shortfall_warn_fraction, other.scaling_shortfall_warn_fraction);
    take(scaling_noise_margin_factor, other.scaling_noise_margin_factor);
    // Counter by counter: a user file naming symbol_error keeps the other allowances.
    for (const auto& [counter, allowed] : other.port_counter_allowances) port_counter_allowances[counter] = allowed;
}

bool is_settings_section(std::string_view key) {
    for (std::string_view section : sections)
        if (section == key) return true;
    return false;
}

void parse_settings_section(const YamlFields& fields, const std::string& section, const YAML::Node& node,
                            AnalysisSettings& settings) {
    if (node.IsNull()) return;
    if (!node.IsMap()) fields.reject(node, fmt::format("{}: expected a map", section));
    std::string expected;
    for (const SettingKey& entry : setting_keys())
        if (entry.section == section) expected += (expected.empty() ? "" : ", ") + std::string(entry.key);
    for (const auto& item : node) {
        const std::string key = fields.key(item.first, section);
        const SettingKey* found = nullptr;
        for (const SettingKey& entry : setting_keys())
            if (entry.section == section && entry.key == key) found = &entry;
        if (found == nullptr)
            fields.reject(item.first, fmt::format("{}: unknown key '{}' (expected {})", section, key, expected));
        found->read(fields, item.second, section + "." + key, settings);
    }
    if (settings.price_per_node_hour && settings.price_per_node_month)
        fields.reject(node, "price: give per_node_hour or per_node_month, not both");
    // A WARN band below the FAIL band named in the same file is a mistake, as for metrics.
    auto ordered = [&](const std::optional<double>& warn, const std::optional<double>& fail, std::string_view warn_key,
                       std::string_view fail_key) {
        if (section == "links" && warn && fail && *warn < *fail)
            fields.reject(node, fmt::format("links: {} ({}) is below {} ({})", warn_key, *warn, fail_key, *fail));
    };
    ordered(settings.link_warn_fraction, settings.link_slow_fraction, "warn_fraction", "slow_fraction");
    ordered(settings.node_warn_fraction, settings.node_fail_fraction, "node_warn_fraction", "node_fail_fraction");
}

}  // namespace shakedown::analysis
