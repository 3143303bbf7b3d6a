// Rent against buy (report/rent_or_buy.hpp) from the site's ownership file (rules/settings/ownership_file.hpp):
// the file read and refused line by line; owning's cost per node-hour and per usable unit, the
// break-even utilization and month, worked by hand; the node's power from the run's own GPU
// energy where the site gives none (the command line: cli_test.cpp).
#include "analysis/report/rent_or_buy.hpp"
#include "analysis/rules/settings/ownership_file.hpp"
#include "analysis_fixtures.hpp"
#include "core/errors.hpp"

#include <gtest/gtest.h>


namespace shakedown::analysis {
namespace {

const std::string site_file = R"(purchase_per_node: 300000
depreciation_months: 36
hosting_per_node_month: 1000
pue: 1.25
energy_per_kwh: 0.2
node_power_w: 10000
)";

std::string refusal(const std::string& yaml) {
    try {
        parse_ownership(yaml, "own.yaml");
    } catch (const InputError& error) {
        return error.what();
    }
    return "";
}

PriceReport price(double per_node_hour) {
    PriceReport report;
    report.node_hour_price = per_node_hour;
    report.currency = "EUR";
    // Two nodes of 200 usable FP64 TFLOP/s each.
    report.fleet.push_back({"FP64 TFLOP/s", "dgemm_fp64.tflops", 400.0, 536.0, 2 * per_node_hour / 400.0, std::nullopt});
    return report;
}

TEST(RentOrBuy, TheSitesFileIsReadAndEveryBadValueIsOneLine) {
    const OwnershipInputs inputs = parse_ownership(site_file, "own.yaml");
    EXPECT_EQ(inputs.purchase_per_node, 300000.0);
    EXPECT_EQ(inputs.depreciation_months, 36.0);
    EXPECT_EQ(inputs.pue, 1.25);
    EXPECT_EQ(*inputs.node_power_w, 10000.0);
    EXPECT_NE(refusal("purchase_per_node: 1\ndepreciation_months: 3\nhosting_per_node_month: 0\n").find("'pue' is missing"),
              std::string::npos);
    EXPECT_NE(refusal(site_file + "rack_units: 4\n").find("unknown key 'rack_units'"), std::string::npos);
    EXPECT_NE(refusal("purchase_per_node: -5\ndepreciation_months: 3\nhosting_per_node_month: 0\npue: 1.2\n")
                  .find("own.yaml:1: purchase_per_node: expected a number above 0"),
              std::string::npos);
    EXPECT_NE(refusal("purchase_per_node: 5\ndepreciation_months: 3\nhosting_per_node_month: 0\npue: 0.8\n").find("pue"),
              std::string::npos);
    EXPECT_NE(refusal("purchase_per_node: 5\ndepreciation_months: .nan\nhosting_per_node_month: 0\npue: 1\n").find(
                  "depreciation_months"),
              std::string::npos);
    for (const std::string& bad : {std::string("- a list"), site_file + "pue: 1.3\n"}) {
        const std::string line = refusal(bad);
        EXPECT_FALSE(line.empty()) << bad;
        EXPECT_EQ(line.find('\n'), std::string::npos) << line;
    }
}

// By hand: fixed 300000 / 36 + 1000 = 9333.33 a month (12.785 an hour), energy 10 kW x 1.25 x 0.2
// = 2.5 an hour; renting at 40 an hour: break-even 9333.33 / (730 x 37.5) = 34.1 % of the hours,
// and at full use 300000 / (730 x 37.5 - 1000) = 11.37 months.
TEST(RentOrBuy, OwningsCostPerHourPerUsableUnitAndTheBreakEvens) {
    const auto comparison = rent_or_buy(parse_ownership(site_file, "own.yaml"), price(40.0), {}, std::nullopt);
    ASSERT_TRUE(comparison);
    ASSERT_EQ(comparison->not_computed, "");
    EXPECT_NEAR(comparison->own_fixed_per_node_hour, (300000.0 / 36 + 1000) / 730, 1e-9);
    EXPECT_NEAR(comparison->own_energy_per_node_hour, 2.5, 1e-12);
    ASSERT_EQ(comparison->units.size(), 1u);
    EXPECT_NEAR(comparison->units[0].rent_per_usable_hour, 0.2, 1e-12);
    EXPECT_NEAR(comparison->units[0].own_per_usable_hour, 2 * ((300000.0 / 36 + 1000) / 730 + 2.5) / 400.0,  // 2 nodes
                1e-9);
    EXPECT_NEAR(*comparison->break_even_utilization, (300000.0 / 36 + 1000) / (730 * 37.5), 1e-12);
    EXPECT_NEAR(*comparison->break_even_month, 300000.0 / (730 * 37.5 - 1000), 1e-9);
    const auto lines = rent_or_buy_lines(*comparison);
    EXPECT_NE(lines[0].find("purchase 300000 EUR per node over 36 months, hosting 1000 EUR per node-month, PUE 1.25"),
              std::string::npos);
    EXPECT_NE(lines.back().find("after 11.4 months"), std::string::npos) << lines.back();
    EXPECT_NE(lines[lines.size() - 2].find("break-even utilization 34 % of the hours"), std::string::npos);

    // A rent this low never pays for the purchase.
    const auto cheap = rent_or_buy(parse_ownership(site_file, "own.yaml"), price(3.0), {}, std::nullopt);
    EXPECT_FALSE(cheap->break_even_utilization);
    EXPECT_FALSE(cheap->break_even_month);
    EXPECT_EQ(rent_or_buy_lines(*cheap).back(), "renting costs less at any utilization at these prices");
}

// Without node_power_w: the run's own GPU power, the test that covered the most GPUs, summed per
// node, median over the nodes; without an energy price, or with neither power: not computed.
TEST(RentOrBuy, TheNodesPowerFromTheRunsGpusAndNotComputedWithoutInputs) {
    OwnershipInputs inputs = parse_ownership(site_file, "own.yaml");
    inputs.node_power_w.reset();
    std::vector<EnergyRow> energy;
    for (int rank = 0; rank < 8; ++rank) {
        EnergyRow row;
        row.node = rank < 4 ? "node0000" : "node0001";
        row.rank = rank;
        row.test = "train_step";
        row.power_w = 600.0;
        energy.push_back(row);
        if (rank < 2) {
            row.test = "dgemm_fp64";
            row.power_w = 700.0;
            energy.push_back(row);
        }
    }
    const auto measured = rent_or_buy(inputs, price(40.0), energy, std::nullopt);
    EXPECT_DOUBLE_EQ(measured->node_power_w, 2400.0);
    EXPECT_NE(measured->node_power_from.find("the run's GPUs in train_step (the GPUs alone; median over 2 node(s))"),
              std::string::npos);

    EXPECT_NE(rent_or_buy(inputs, price(40.0), {}, std::nullopt)->not_computed.find("no node power"), std::string::npos);
    inputs.energy_per_kwh.reset();
    EXPECT_NE(rent_or_buy(inputs, price(40.0), energy, std::nullopt)->not_computed.find("no energy price"),
              std::string::npos);
    EXPECT_EQ(rent_or_buy(inputs, price(40.0), energy, 0.3)->energy_per_kwh, 0.3);  // price.energy_per_kwh
    EXPECT_FALSE(rent_or_buy(inputs, std::nullopt, energy, 0.3));  // no rent: no comparison
}

}  // namespace
}  // namespace shakedown::analysis
