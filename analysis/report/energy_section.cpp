#include "analysis/report/energy_section.hpp"

#include "stats/summary.hpp"

#include <fmt/format.h>

#include <map>

namespace shakedown::analysis {
namespace {

std::string gpu_text(const EnergyRow& row) { return row.gpu ? fmt::format("GPU {}", *row.gpu) : "host"; }

// A test's rows on GPUs and on host ranks are summarized apart: their powers are not alike.
std::string summary_key(const EnergyRow& row) { return row.gpu ? row.test : row.test + " on the host"; }
std::string_view counted_as(const EnergyRow& row) { return row.gpu ? "GPU(s)" : "host rank(s)"; }

std::string per_units_text(const EnergyRow& row) {
    std::string text;
    for (const EnergyPerUnit& unit : row.per_unit)
        text += fmt::format("{}{:.4g} J per {}", text.empty() ? "" : ", ", unit.joules, unit.unit);
    return text.empty() ? "-" : text;
}

}  // namespace

WorkloadTable energy_table(const std::vector<EnergyRow>& rows) {
    WorkloadTable table{{"node / rank / GPU", "test", "timed phase", "mean power", "energy per unit", "per watt",
                         "nominal per watt"},
                        {}};
    for (const EnergyRow& row : rows) {
        if (!row.power_w) continue;
        table.rows.push_back(
            {fmt::format("{} / {} / {}", row.node, row.rank, gpu_text(row)), row.test,
             fmt::format("{:.2f} s, {} readings", row.window.seconds(), row.readings),
             fmt::format("{:.1f} W ({}{})", *row.power_w, row.source,
                         row.source != "power readings" && row.power_readings_w
                             ? fmt::format("; readings {:.1f} W", *row.power_readings_w) : ""),
             per_units_text(row), row.per_watt ? fmt::format("{:.4g} {}", *row.per_watt, row.per_watt_unit) : "-",
             row.nominal_per_watt && row.power_limit_w
                 ? fmt::format("{:.4g} (limit {:.0f} W)", *row.nominal_per_watt, *row.power_limit_w) : "-"});
    }
    return table;
}

std::vector<std::string> energy_lines(const std::vector<EnergyRow>& rows) {
    std::vector<std::string> lines;
    if (rows.empty()) return lines;
    lines.push_back(fmt::format("energy from the run's own readings: each GPU's mean power over the test's timed phase "
                                "(NVML's energy counter over at least {} s, else its power readings over at least {} s), "
                                "over the unit's rate; host ranks: the node's CPU packages (RAPL energy counter) "
                                "shared by its ranks, where the node exposes it",
                                min_counter_window_s, min_power_window_s));
    // Per test and unit: the median over the GPUs measured.
    std::map<std::string, std::map<std::string, std::vector<double>>> joules;
    std::map<std::string, std::vector<double>> per_watt, nominal_per_watt;
    std::map<std::string, std::string> per_watt_unit;
    std::map<std::string, int> measured, missing;
    std::map<std::string, std::string_view> counted;
    std::map<std::string, std::string> test_of;
    for (const EnergyRow& row : rows) {
        const std::string key = summary_key(row);
        counted[key] = counted_as(row);
        test_of[key] = row.test;
        if (!row.power_w) {
            ++missing[key];
            continue;
        }
        ++measured[key];
        for (const EnergyPerUnit& unit : row.per_unit) joules[key][unit.unit].push_back(unit.joules);
        if (row.per_watt) per_watt[key].push_back(*row.per_watt);
        if (row.nominal_per_watt) nominal_per_watt[key].push_back(*row.nominal_per_watt);
        per_watt_unit[key] = row.per_watt_unit;
    }
    for (const auto& [test, count] : measured) {
        std::string text;
        for (const auto& [unit, values] : joules[test])
            text += fmt::format("{}{:.4g} J per {}", text.empty() ? "" : ", ", stats::median(values), unit);
        if (!per_watt[test].empty()) {
            text += fmt::format("; {:.4g} {}", stats::median(per_watt[test]), per_watt_unit[test]);
            if (!nominal_per_watt[test].empty())
                text += fmt::format(", {:.2f} of the nominal's {:.4g} at the power limit",
                                    stats::median(per_watt[test]) / stats::median(nominal_per_watt[test]),
                                    stats::median(nominal_per_watt[test]));
        }
        lines.push_back(fmt::format("{} on {} {}, median: {}", test_of[test], count, counted[test],
                                    text.empty() ? "no unit rate" : text));
    }
    // One line per test however many GPUs: the count and the first one's reason (a fleet's quick
    // suite has the same short phase on every GPU).
    std::map<std::string, const EnergyRow*> first_missing;
    for (const EnergyRow& row : rows)
        if (!row.power_w && !first_missing.count(summary_key(row))) first_missing[summary_key(row)] = &row;
    for (const auto& [test, row] : first_missing)
        lines.push_back(fmt::format("{}: not measured on {} {}, as on {} rank {} {}: {}", test_of[test], missing[test],
                                    counted[test], row->node, row->rank, gpu_text(*row), row->not_measured));
    return lines;
}

}  // namespace shakedown::analysis
