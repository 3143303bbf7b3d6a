#include "analysis/report/rent_or_buy.hpp"

#include "stats/summary.hpp"

#include <fmt/format.h>

#include <map>

namespace shakedown::analysis {
namespace {

// The node's GPUs' summed mean power for the test whose figures cover the most GPUs (at a tie the
// one that drew the most: the heaviest load), median over the nodes: what a node draws in use.
std::optional<std::pair<double, std::string>> measured_node_power(const std::vector<EnergyRow>& energy) {
    std::map<std::string, std::map<std::string, double>> per_test_node;  // test -> node -> watts
    std::map<std::string, int> gpus;
    std::map<std::string, double> drawn;
    for (const EnergyRow& row : energy) {
        if (!row.power_w) continue;
        per_test_node[row.test][row.node] += *row.power_w;
        ++gpus[row.test];
        drawn[row.test] += *row.power_w;
    }
    std::string best;
    for (const auto& [test, count] : gpus)
        if (best.empty() || count > gpus[best] || (count == gpus[best] && drawn[test] > drawn[best])) best = test;
    if (best.empty()) return std::nullopt;
    std::vector<double> nodes;
    for (const auto& [node, watts] : per_test_node[best]) nodes.push_back(watts);
    return std::pair{stats::median(nodes), fmt::format("the run's GPUs in {} (the GPUs alone; median over {} node(s))",
                                                       best, nodes.size())};
}

}  // namespace

std::optional<RentOrBuy> rent_or_buy(const std::optional<OwnershipInputs>& inputs, const std::optional<PriceReport>& price,
                                     const std::vector<EnergyRow>& energy, std::optional<double> energy_per_kwh) {
    if (!inputs || !price) return std::nullopt;
    RentOrBuy result;
    result.inputs = *inputs;
    result.currency = price->currency;
    result.rent_per_node_hour = price->node_hour_price;
    const std::optional<double> kwh_price = inputs->energy_per_kwh ? inputs->energy_per_kwh : energy_per_kwh;
    if (!kwh_price) {
        result.not_computed = "no energy price (energy_per_kwh in the ownership file, or price.energy_per_kwh)";
        return result;
    }
    result.energy_per_kwh = *kwh_price;
    if (inputs->node_power_w) {
        result.node_power_w = *inputs->node_power_w;
        result.node_power_from = "the site's node_power_w";
    } else if (const auto measured = measured_node_power(energy)) {
        result.node_power_w = measured->first;
        result.node_power_from = measured->second;
    } else {
        result.not_computed = "no node power: the run measured no GPU's energy (Energy) and the ownership file gives no "
                              "node_power_w";
        return result;
    }
    const double fixed_per_month = inputs->purchase_per_node / inputs->depreciation_months + inputs->hosting_per_node_month;
    result.own_fixed_per_node_hour = fixed_per_month / hours_per_month;
    result.own_energy_per_node_hour = result.node_power_w / 1000.0 * inputs->pue * *kwh_price;
    const double own_per_node_hour = result.own_fixed_per_node_hour + result.own_energy_per_node_hour;
    for (const PriceLine& line : price->fleet)
        if (line.usable && *line.usable > 0.0 && line.per_usable_hour)
            result.units.push_back({line.quantity, *line.usable, *line.per_usable_hour,
                                    *line.per_usable_hour * own_per_node_hour / result.rent_per_node_hour});
    // Owning u of the hours: fixed + u x hours x energy; renting: u x hours x rent.
    const double margin_per_month = hours_per_month * (result.rent_per_node_hour - result.own_energy_per_node_hour);
    if (margin_per_month > 0.0 && fixed_per_month / margin_per_month <= 1.0)
        result.break_even_utilization = fixed_per_month / margin_per_month;
    // At full use, month m: purchase + m (hosting + energy) against m x rent.
    const double saved_per_month = margin_per_month - inputs->hosting_per_node_month;
    if (saved_per_month > 0.0) result.break_even_month = inputs->purchase_per_node / saved_per_month;
    return result;
}

std::vector<std::string> rent_or_buy_lines(const RentOrBuy& comparison) {
    const OwnershipInputs& in = comparison.inputs;
    const std::string& currency = comparison.currency;
    std::vector<std::string> lines;
    lines.push_back(fmt::format("rent against buy ({}): purchase {} per node over {:g} months, hosting {} per node-month, "
                                "PUE {:g}, energy {} per kWh, rent {} per node-hour",
                                in.source, money(in.purchase_per_node, currency), in.depreciation_months,
                                money(in.hosting_per_node_month, currency), in.pue,
                                comparison.not_computed.empty() ? money(comparison.energy_per_kwh, currency) : "-",
                                money(comparison.rent_per_node_hour, currency)));
    if (!comparison.not_computed.empty()) {
        lines.push_back("rent against buy: not computed: " + comparison.not_computed);
        return lines;
    }
    lines.push_back(fmt::format("owning a node: {} per hour at full use ({} fixed, {} energy at {:.0f} W from {})",
                                money(comparison.own_fixed_per_node_hour + comparison.own_energy_per_node_hour, currency),
                                money(comparison.own_fixed_per_node_hour, currency),
                                money(comparison.own_energy_per_node_hour, currency), comparison.node_power_w,
                                comparison.node_power_from));
    for (const OwnedUnit& unit : comparison.units)
        lines.push_back(fmt::format("per usable {} per hour: owned {} at full use, rented {}", unit.quantity,
                                    money(unit.own_per_usable_hour, currency), money(unit.rent_per_usable_hour, currency)));
    lines.push_back(comparison.break_even_utilization
                        ? fmt::format("break-even utilization {:.0f} % of the hours: used more, owning costs less",
                                      *comparison.break_even_utilization * 100.0)
                        : std::string("renting costs less at any utilization at these prices"));
    if (comparison.break_even_month)
        lines.push_back(fmt::format("at full use the rent paid passes the purchase and running cost after {:.1f} months{}",
                                    *comparison.break_even_month,
                                    *comparison.break_even_month > in.depreciation_months ? " (after the depreciation period)"
                                                                                          : ""));
    return lines;
}

}  // namespace shakedown::analysis
