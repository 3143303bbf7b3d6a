#include "analysis/rules/health/port_counter_rule.hpp"

#include "core/clock.hpp"
#include "telemetry/rdma_port_names.hpp"
#include "telemetry/telemetry_columns.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <optional>
#include <string_view>
#include <utility>

namespace shakedown::analysis {
namespace {

struct PortName {
    std::string device;  // "mlx5_0"
    std::string port;    // "1"
};

// "mlx5_0_port1" -> {"mlx5_0", "1"}; host, gpuN and anything else -> nullopt.
std::optional<PortName> port_of_table(const std::string& table) {
    const auto at = table.rfind(rdma_port_table_infix);
    if (at == std::string::npos || at == 0) return std::nullopt;
    std::string port = table.substr(at + rdma_port_table_infix.size());
    if (port.empty() || !std::all_of(port.begin(), port.end(), [](unsigned char c) { return std::isdigit(c) != 0; }))
        return std::nullopt;
    return PortName{table.substr(0, at), std::move(port)};
}

// "08:01:02" (UTC) from seconds since the epoch.
std::string clock_time(double utc) { return format_utc(utc).substr(11, 8); }

struct Drop {
    double t = 0.0;
    double from = 0.0;
    double to = 0.0;
};

// What one counter did over the run: the sum of its forward steps between readings, and every
// step backwards (a reset or wrap: the counts lost there are unknown, so never a negative delta).
struct CounterHistory {
    double rise = 0.0;
    double peak = 0.0;   // the highest reading
    double first = 0.0;  // the first and last readings
    double last = 0.0;
    int readings = 0;
    std::vector<Drop> drops;
};

CounterHistory history_of(const SampleTable& table, std::size_t column, std::size_t time_column) {
    CounterHistory history;
    std::optional<double> previous;
    for (const auto& row : table.rows()) {
        const double value = row[column];
        if (!std::isfinite(value)) continue;  // a read that failed or raced a rewrite
        if (history.readings == 0) history.first = value;
        history.last = value;
        ++history.readings;
        history.peak = std::max(history.peak, value);
        if (previous) {
            if (value < *previous) history.drops.push_back({row[time_column], *previous, value});
            else history.rise += value - *previous;
        }
        previous = value;
    }
    return history;
}

// The IBA PortCounters error counters stop at their width's maximum instead of wrapping (the
// kernel shows them as read). At the ceiling, further errors cannot show. hw_counters and the
// traffic counters are 64-bit: never there in practice.
std::optional<double> counter_ceiling(std::string_view counter) {
    constexpr std::array<std::pair<std::string_view, int>, 12> widths{{
        {"symbol_error", 16},
        {"link_error_recovery", 8},
        {"link_downed", 8},
        {"port_rcv_errors", 16},
        {"port_rcv_remote_physical_errors", 16},
        {"port_rcv_switch_relay_errors", 16},
        {"port_xmit_discards", 16},
        {"port_xmit_constraint_errors", 8},
        {"port_rcv_constraint_errors", 8},
        {"local_link_integrity_errors", 4},
        {"excessive_buffer_overrun_errors", 4},
        {"VL15_dropped", 16},
    }};
    for (const auto& [name, bits] : widths)
        if (name == counter) return std::ldexp(1.0, bits) - 1.0;
    return std::nullopt;
}

// InfiniBand link flaps, each its own finding with its rule: link_downed counts the times the
// link training failed and the link went down (and came back: a flap the state column can miss
// between two readings); link_error_recovery counts successful retrainings after errors, the
// link stayed up. Their levels come from port_counters.warn_counters (default.yaml: recovery WARNs).
struct LinkFlapRule {
    std::string_view counter;
    std::string_view name;
    std::string_view meaning;
};

constexpr std::array<LinkFlapRule, 2> link_flap_rules{{
    {"link_downed", "link_flap", "the link went down and came back"},
    {"link_error_recovery", "link_error_recovery", "the link retrained after errors without going down"},
}};

const LinkFlapRule* link_flap_rule(std::string_view counter) {
    for (const LinkFlapRule& rule : link_flap_rules)
        if (rule.counter == counter) return &rule;
    return nullptr;
}

struct LinkFlap {
    const LinkFlapRule* rule;
    std::string column;
    std::string rise;
    CounterHistory history;
};

// The port's state as the kernel names it (sysfs "4: ACTIVE"), for the state column's codes.
std::string state_name(double code) {
    switch (static_cast<int>(code)) {
    case 1: return "DOWN";
    case 2: return "INIT";
    case 3: return "ARMED";
    case 4: return "ACTIVE";
    case 5: return "ACTIVE_DEFER";
    default: return fmt::format("state {}", format_number(code));
    }
}

constexpr double active_state = 4.0;

// Every change of the port's state between readings, "DOWN at 08:02:03" (at most `most`, then
// "and N more"), when the port was ACTIVE at some reading: a port that flaps or drops during
// the run. A port never ACTIVE (an unused second port) is the inventory's business, not this.
std::optional<std::string> state_changes(const SampleTable& table, std::size_t time_column) {
    const auto state_column = table.column_index(rdma_port_state_column);
    if (!state_column) return std::nullopt;
    std::vector<std::string> changes;
    std::optional<double> previous;
    bool ever_active = false;
    for (const auto& row : table.rows()) {
        const double state = row[*state_column];
        if (!std::isfinite(state)) continue;
        ever_active = ever_active || state == active_state;
        if (previous && state != *previous)
            changes.push_back(fmt::format("{} at {}", state_name(state), clock_time(row[time_column])));
        previous = state;
    }
    if (changes.empty() || !ever_active) return std::nullopt;
    constexpr std::size_t most = 4;
    std::string text;
    for (std::size_t i = 0; i < std::min(changes.size(), most); ++i) text += (i == 0 ? "" : ", ") + changes[i];
    if (changes.size() > most) text += fmt::format(" and {} more", changes.size() - most);
    return text;
}

// The run's window as the counters saw it: the first and last reading's time.
std::pair<double, double> reading_window(const SampleTable& table, std::size_t time_column) {
    double first = NAN;
    double last = NAN;
    for (const auto& row : table.rows()) {
        if (!std::isfinite(row[time_column])) continue;
        if (std::isnan(first)) first = row[time_column];
        last = row[time_column];
    }
    return {first, last};
}

void judge_port(const RankIdentity& leader, const PortName& port, const SampleTable& table, const AnalysisSettings& settings,
                std::vector<Finding>& findings) {
    const auto time_column = table.column_index(rdma_counters_time_column) ? table.column_index(rdma_counters_time_column)
                                                                           : table.column_index(telemetry_columns::time);
    if (!time_column || table.size() < 2) return;
    const auto [first_t, last_t] = reading_window(table, *time_column);
    const std::string where = fmt::format("{} port {}", port.device, port.port);

    std::vector<std::string> risen;
    std::vector<LinkFlap> flaps;
    std::vector<std::string> dropped;
    std::vector<std::string> saturated;
    const auto& columns = table.columns();
    for (std::size_t index = 0; index < columns.size(); ++index) {
        if (!is_rdma_error_column(columns[index].name)) continue;
        const std::string counter(rdma_counter_of_column(columns[index].name));
        const CounterHistory history = history_of(table, index, *time_column);
        if (history.readings < 2) continue;  // a run shorter than one reading period: nothing to compare
        const double allowed = settings.allowed_increase(counter);
        const std::string rise_text =
            allowed > 0 ? fmt::format("{} +{} (allowed {})", counter, format_number(history.rise), format_number(allowed))
                        : fmt::format("{} +{}", counter, format_number(history.rise));
        if (history.rise > allowed) {
            if (const LinkFlapRule* rule = link_flap_rule(counter))
                flaps.push_back({rule, columns[index].name, rise_text, history});
            else risen.push_back(rise_text);
        }
        for (const Drop& drop : history.drops)
            dropped.push_back(fmt::format("{} went backwards from {} to {} at {}", counter, format_number(drop.from),
                                          format_number(drop.to), clock_time(drop.t)));
        if (const auto ceiling = counter_ceiling(counter); ceiling && history.peak >= *ceiling)
            saturated.push_back(fmt::format("{} at its ceiling {}", counter, format_number(*ceiling)));
    }
    const std::string window = fmt::format("({}-{})", clock_time(first_t), clock_time(last_t));
    auto join = [](const std::vector<std::string>& parts) {
        std::string text;
        for (const std::string& part : parts) text += (text.empty() ? "" : ", ") + part;
        return text;
    };
    const auto report = [&](Level level, const std::string& what) {
        // "[rule X]" stays the reason's last word, after the window.
        const auto tag = what.rfind(" [rule ");
        const std::string text = tag == std::string::npos
                                     ? fmt::format("{}: {} {}", where, what, window)
                                     : fmt::format("{}: {} {}{}", where, what.substr(0, tag), window, what.substr(tag));
        findings.push_back(make_finding(leader, port_counter_check, level, text, FindingSource::port_counters));
    };
    if (!risen.empty()) report(Level::fail, join(risen) + " during the run");
    for (const LinkFlap& flap : flaps) {
        const std::string counter(rdma_counter_of_column(flap.column));
        report(settings.port_counter_warns(counter) ? Level::warn : Level::fail,
               fmt::format("{} during the run: {} [rule {}]", flap.rise, flap.rule->meaning, flap.rule->name));
        Finding& finding = findings.back();
        finding.metric = flap.column;
        finding.value = flap.history.last;
        finding.reference = flap.history.first;
        finding.unit = "count";
    }
    if (const auto changes = state_changes(table, *time_column))
        report(Level::fail, "the port left ACTIVE during the run: " + *changes);
    if (!saturated.empty())
        report(Level::warn,
               join(saturated) + ": errors beyond it cannot show (clear the port counters before an acceptance run)");
    if (!dropped.empty())
        report(Level::warn,
               join(dropped) + " (cleared, driver reload or wrap): errors lost across the drop are not counted");
}

}  // namespace

std::vector<Finding> port_counter_findings(const RankIdentity& leader, const std::map<std::string, SampleTable>& telemetry,
                                           const AnalysisSettings& settings) {
    std::vector<Finding> findings;
    for (const auto& [table_name, table] : telemetry)
        if (const auto port = port_of_table(table_name)) judge_port(leader, *port, table, settings, findings);
    return findings;
}

}  // namespace shakedown::analysis
