#include "analysis/energy/energy_figures.hpp"

#include "analysis/energy/energy_declarations.hpp"
#include "analysis/rules/health/telemetry_explanation.hpp"
#include "analysis/rules/health/telemetry_series.hpp"
#include "stats/summary.hpp"
#include "telemetry/telemetry_columns.hpp"

#include <fmt/format.h>

#include <cmath>

namespace shakedown::analysis {
namespace {

namespace gpu_columns = telemetry_columns::gpu;

int readings_inside(const Series& series, const TimeWindow& window) {
    int count = 0;
    for (double t : series.t)
        if (t >= window.start_utc && t <= window.end_utc) ++count;
    return count;
}

// The series' value at `t`, linear between the readings around it; nothing outside them.
std::optional<double> value_at(const Series& series, double t) {
    for (std::size_t i = 0; i + 1 < series.t.size(); ++i) {
        if (series.t[i] > t) break;
        if (series.t[i + 1] < t) continue;
        const double span = series.t[i + 1] - series.t[i];
        if (span <= 0.0) return series.value[i];
        return series.value[i] + (series.value[i + 1] - series.value[i]) * (t - series.t[i]) / span;
    }
    if (!series.t.empty() && series.t.back() == t) return series.value.back();
    return std::nullopt;
}

struct MeanPower {
    std::optional<double> watts;
    std::string why_not;
};

// `none`: why a device has no counter readings at all.
MeanPower counter_mean(const Series& energy, const TimeWindow& window, std::string_view none) {
    if (energy.empty()) return {std::nullopt, std::string(none)};
    if (window.seconds() < min_counter_window_s)
        return {std::nullopt, fmt::format("the phase lasted {:.2f} s, the energy counter needs {} s (its rise between "
                                          "readings swings within each second)",
                                          window.seconds(), min_counter_window_s)};
    const int inside = readings_inside(energy, window);
    if (inside < min_counter_readings)
        return {std::nullopt, fmt::format("{} energy counter reading(s) in the {:.2f} s phase (at least {})", inside,
                                          window.seconds(), min_counter_readings)};
    const std::optional<double> first = value_at(energy, window.start_utc);
    const std::optional<double> last = value_at(energy, window.end_utc);
    if (!first || !last) return {std::nullopt, "the energy counter's readings do not reach both ends of the phase"};
    for (std::size_t i = 0; i + 1 < energy.t.size(); ++i)
        if (energy.t[i + 1] >= window.start_utc && energy.t[i] <= window.end_utc && energy.value[i + 1] < energy.value[i])
            return {std::nullopt, "the energy counter went back during the phase (the driver reloaded)"};
    return {(*last - *first) / window.seconds(), ""};
}

MeanPower readings_mean(const Series& power, const TimeWindow& window) {
    if (power.empty()) return {std::nullopt, "no power reading"};
    if (window.seconds() < min_power_window_s)
        return {std::nullopt, fmt::format("the phase lasted {:.2f} s, power readings need {} s (each is a mean over "
                                          "the last second)",
                                          window.seconds(), min_power_window_s)};
    std::vector<std::pair<double, double>> points;
    if (const auto edge = value_at(power, window.start_utc)) points.emplace_back(window.start_utc, *edge);
    for (std::size_t i = 0; i < power.t.size(); ++i)
        if (power.t[i] > window.start_utc && power.t[i] < window.end_utc) points.emplace_back(power.t[i], power.value[i]);
    if (const auto edge = value_at(power, window.end_utc)) points.emplace_back(window.end_utc, *edge);
    if (points.size() < 2) return {std::nullopt, "fewer than 2 power readings in the phase"};
    double joules = 0.0;
    for (std::size_t i = 0; i + 1 < points.size(); ++i)
        joules += 0.5 * (points[i].second + points[i + 1].second) * (points[i + 1].first - points[i].first);
    const double covered = points.back().first - points.front().first;
    if (covered < 0.9 * window.seconds())
        return {std::nullopt, fmt::format("the power readings cover {:.2f} s of the {:.2f} s phase", covered, window.seconds())};
    return {joules / covered, ""};
}

std::optional<double> median_inside(const Series& series, const TimeWindow& window) {
    std::vector<double> values;
    for (std::size_t i = 0; i < series.t.size(); ++i)
        if (series.t[i] >= window.start_utc && series.t[i] <= window.end_utc) values.push_back(series.value[i]);
    if (values.empty()) return std::nullopt;
    return stats::median(values);
}

// The row's timed phase, or why the test gives no energy figure (not_measured set).
bool has_timed_phase(EnergyRow& row, const TestResult& test) {
    if (test.status != Status::pass) {
        row.not_measured = "the test did not pass: its figures are no result";
        return false;
    }
    if (!test.measured) {
        row.not_measured = "the test recorded no timed phase (a trace before schema 1.2)";
        return false;
    }
    row.window = *test.measured;
    if (!(row.window.seconds() > 0.0)) {
        row.not_measured = "the timed phase has no length";
        return false;
    }
    return true;
}

// Joules per unit and the usable rate per watt at `watts`, the power of this rank's work.
void add_per_unit_figures(EnergyRow& row, const TestResult& test, const EnergyDeclaration& declaration, double watts) {
    for (const EnergyUnit& unit : declaration.units) {
        if (unit.unit.empty()) continue;
        const Metric* rate = finite_metric(test, unit.rate_metric);
        if (rate == nullptr || !(rate->value > 0.0)) continue;
        const double joules = unit.seconds_per_unit ? watts * rate->value : watts / (rate->value * unit.units_per_rate_unit);
        row.per_unit.push_back({std::string(unit.unit), joules});
    }
    if (const Metric* rate = declaration.per_watt_metric.empty() ? nullptr
                                                                 : finite_metric(test, declaration.per_watt_metric)) {
        row.per_watt = rate->value / watts;
        if (rate->nominal && *rate->nominal > 0.0 && row.power_limit_w && *row.power_limit_w > 0.0)
            row.nominal_per_watt = *rate->nominal / *row.power_limit_w;
    }
}

}  // namespace

EnergyRow energy_of(const RankIdentity& who, const TestResult& test, const EnergyDeclaration& declaration,
                    const SampleTable* gpu_table) {
    EnergyRow row{.node = who.node, .rank = who.rank, .gpu = who.gpu, .test = test.key};
    row.per_watt_unit = std::string(declaration.per_watt_unit);
    if (!has_timed_phase(row, test)) return row;
    if (gpu_table == nullptr) {
        row.not_measured = "no telemetry of this GPU on the node's leader";
        return row;
    }
    const std::string time(telemetry_columns::time);
    const Series energy = column_series(*gpu_table, gpu_columns::energy_j, time);
    const Series power = column_series(*gpu_table, gpu_columns::power_w, time);
    row.readings = std::max(readings_inside(energy, row.window), readings_inside(power, row.window));
    const MeanPower counted = counter_mean(energy, row.window, "no energy counter reading (the GPU or its driver has none)");
    const MeanPower read = readings_mean(power, row.window);
    row.power_readings_w = read.watts;
    if (counted.watts) {
        row.power_w = counted.watts;
        row.source = "energy counter";
    } else if (read.watts) {
        row.power_w = read.watts;
        row.source = "power readings";
    } else {
        row.not_measured = fmt::format("{}; {}", counted.why_not, read.why_not);
        return row;
    }
    if (!(*row.power_w > 0.0)) {
        row.not_measured = fmt::format("a mean power of {:.3g} W over the phase cannot be true", *row.power_w);
        row.power_w.reset();
        return row;
    }
    row.power_limit_w = median_inside(column_series(*gpu_table, gpu_columns::power_limit_w, time), row.window);
    if (row.power_limit_w && *row.power_limit_w > 0.0 && *row.power_w > max_mean_power_over_limit * *row.power_limit_w) {
        row.not_measured = fmt::format("a mean power of {:.0f} W over the phase cannot be true: {:.2f} times the "
                                       "enforced limit of {:.0f} W (at most {})",
                                       *row.power_w, *row.power_w / *row.power_limit_w, *row.power_limit_w,
                                       max_mean_power_over_limit);
        row.power_w.reset();
        return row;
    }
    add_per_unit_figures(row, test, declaration, *row.power_w);
    return row;
}

EnergyRow host_energy_of(const RankIdentity& who, const TestResult& test, const EnergyDeclaration& declaration,
                         const SampleTable* host_table, int sharing_ranks) {
    EnergyRow row{.node = who.node, .rank = who.rank, .gpu = std::nullopt, .test = test.key};
    row.per_watt_unit = std::string(declaration.per_watt_unit);
    if (!has_timed_phase(row, test)) return row;
    if (host_table == nullptr) {
        row.not_measured = "no host telemetry on the node's leader";
        return row;
    }
    const Series energy = column_series(*host_table, telemetry_columns::host::package_energy_j, telemetry_columns::time);
    row.readings = readings_inside(energy, row.window);
    const MeanPower counted = counter_mean(energy, row.window,
                                           "no CPU package energy reading (the node exposes no RAPL counter, or only "
                                           "to root)");
    if (!counted.watts) {
        row.not_measured = counted.why_not;
        return row;
    }
    if (!(*counted.watts > 0.0)) {
        row.not_measured = fmt::format("a mean package power of {:.3g} W over the phase cannot be true", *counted.watts);
        return row;
    }
    const int ranks = std::max(sharing_ranks, 1);
    row.power_w = *counted.watts / ranks;
    row.source = fmt::format("CPU packages (RAPL) {:.1f} W, shared by {} rank(s)", *counted.watts, ranks);
    add_per_unit_figures(row, test, declaration, *row.power_w);
    return row;
}

bool node_has_energy_figures(const Observations& observations, const NodeRow& node) {
    for (std::size_t index : node.tests) {
        const TestRow& row = observations.tests()[index];
        if (row.test->status != Status::waived && energy_declaration_of(row.test->key) != nullptr) return true;
    }
    return false;
}

std::vector<EnergyRow> node_energy(const Observations& observations, const NodeRow& node,
                                   const std::map<std::string, SampleTable>& telemetry,
                                   const std::map<std::string, std::map<std::string, std::string>>& attributes) {
    std::vector<EnergyRow> rows;
    for (std::size_t index : node.tests) {
        const TestRow& row = observations.tests()[index];
        const EnergyDeclaration* declaration = energy_declaration_of(row.test->key);
        if (declaration == nullptr || row.test->status == Status::waived) continue;
        if (measured_on_gpu(*row.who, *row.test)) {
            const std::optional<std::string> table =
                gpu_telemetry_table(telemetry, attributes, row.who->gpu_uuid, row.who->gpu);
            rows.push_back(energy_of(*row.who, *row.test, *declaration, table ? &telemetry.at(*table) : nullptr));
            continue;
        }
        // On the host: the node's CPU packages served every rank of the node that ran the test there.
        int sharing = 0;
        for (std::size_t other : node.tests) {
            const TestRow& peer = observations.tests()[other];
            if (peer.test->key == row.test->key && peer.test->status != Status::waived &&
                !measured_on_gpu(*peer.who, *peer.test))
                ++sharing;
        }
        const auto host = telemetry.find(std::string(telemetry_columns::host_table));
        rows.push_back(host_energy_of(*row.who, *row.test, *declaration, host == telemetry.end() ? nullptr : &host->second,
                                      sharing));
    }
    return rows;
}

}  // namespace shakedown::analysis
