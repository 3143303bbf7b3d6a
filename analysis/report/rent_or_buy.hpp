// Rent against buy (the Price section): what owning a node costs per hour against the rent already
// accepted (price.per_node_hour / per_node_month), from a small YAML the site writes (--ownership):
//
//   purchase_per_node: 320000      # what one node costs to buy
//   depreciation_months: 36        # over how long it is written off
//   hosting_per_node_month: 1200   # rack space, network, support: paid whether it runs or not
//   pue: 1.3                       # facility power over IT power (at least 1)
//   energy_per_kwh: 0.22           # optional: else price.energy_per_kwh
//   node_power_w: 10200            # optional: the node's wall power under load, measured at the PDU;
//                                  # else the run's own GPU power (Energy), the GPUs alone
//
// Owning a node an hour in use costs its fixed share (purchase over the depreciation period plus
// hosting, every hour of the month whether used or not) plus its energy (power x PUE x price);
// renting costs the rent for the hours used. Given: the cost per usable unit of each (the Price
// section's usable figures), the break-even utilization (the share of hours in use above which
// owning costs less) and the break-even month at full use (when the rent paid passes the purchase
// and running cost). Every input is listed beside the result.
#pragma once

#include "analysis/energy/energy_figures.hpp"
#include "analysis/report/price_report.hpp"
#include "analysis/rules/settings/ownership_file.hpp"

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace shakedown::analysis {

struct OwnedUnit {
    std::string quantity;  // "FP64 TFLOP/s"
    double usable = 0.0;   // the fleet's usable sum
    double rent_per_usable_hour = 0.0;
    double own_per_usable_hour = 0.0;  // at full use
};

struct RentOrBuy {
    OwnershipInputs inputs;
    std::string currency;
    double rent_per_node_hour = 0.0;
    double energy_per_kwh = 0.0;
    double node_power_w = 0.0;
    std::string node_power_from;          // "the site's node_power_w" or "the run's GPUs: train_step ..."
    double own_fixed_per_node_hour = 0.0;  // purchase and hosting, over every hour of the period
    double own_energy_per_node_hour = 0.0;
    std::vector<OwnedUnit> units;
    std::optional<double> break_even_utilization;  // unset: renting costs less at any use
    std::optional<double> break_even_month;        // at full use; unset: never within reason
    std::string not_computed;                      // why there is no comparison ("" when there is)
};

// Nothing without a rent (no price report) or without ownership inputs.
std::optional<RentOrBuy> rent_or_buy(const std::optional<OwnershipInputs>& inputs, const std::optional<PriceReport>& price,
                                     const std::vector<EnergyRow>& energy, std::optional<double> energy_per_kwh);

std::vector<std::string> rent_or_buy_lines(const RentOrBuy& comparison);

}  // namespace shakedown::analysis
