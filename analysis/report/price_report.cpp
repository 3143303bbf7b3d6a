#include "analysis/report/price_report.hpp"

#include "analysis/report/headline_figures.hpp"
#include "stats/summary.hpp"

#include <fmt/format.h>

#include <array>

namespace shakedown::analysis {
namespace {

// The declared figures the table prices, in their headline order.
std::vector<HeadlineFigure> priced_figures() {
    std::vector<HeadlineFigure> priced;
    for (const DeclaredHeadline& declared : headline_figures())
        if (!declared.figure.priced_as.empty()) priced.push_back(declared.figure);
    return priced;
}

std::optional<double> per(double price, const std::optional<double>& amount) {
    if (!amount || *amount <= 0.0) return std::nullopt;
    return price / *amount;
}

}  // namespace

std::string money(double value, const std::string& currency) {
    const std::string number = value >= 100 ? fmt::format("{:.0f}", value) : fmt::format("{:.3g}", value);
    return currency.empty() ? number : number + " " + currency;
}

std::optional<PriceReport> make_price_report(const std::vector<NodeMetrics>& nodes, const AnalysisSettings& settings) {
    const auto hour_price = settings.node_hour_price();
    if (!hour_price) return std::nullopt;
    PriceReport report;
    report.node_hour_price = *hour_price;
    report.currency = settings.currency_text();
    struct FleetSum {
        double usable = 0.0;
        double nominal = 0.0;
        int nodes = 0;
        int nominal_nodes = 0;
        std::vector<double> medians;
    };
    const std::vector<HeadlineFigure> priced = priced_figures();
    std::vector<FleetSum> fleet(priced.size());
    for (const NodeMetrics& node : nodes) {
        NodePrice line{node.node, {}};
        for (std::size_t q = 0; q < priced.size(); ++q) {
            const NodeMetric* metric = node.find(priced[q].metric);
            PriceLine price{priced[q].priced_as, priced[q].metric, std::nullopt, std::nullopt, std::nullopt, std::nullopt};
            if (metric != nullptr) {
                price.usable = priced[q].additive ? metric->sum : metric->median;
                if (metric->nominal) price.nominal = priced[q].additive ? metric->nominal_sum : metric->nominal;
                price.per_usable_hour = per(*hour_price, price.usable);
                price.per_nominal_hour = per(*hour_price, price.nominal);
                FleetSum& sum = fleet[q];
                sum.usable += *price.usable;
                sum.medians.push_back(*price.usable);
                ++sum.nodes;
                if (price.nominal) {
                    sum.nominal += *price.nominal;
                    ++sum.nominal_nodes;
                }
            }
            line.lines.push_back(std::move(price));
        }
        report.nodes.push_back(std::move(line));
    }
    for (std::size_t q = 0; q < priced.size(); ++q) {
        const FleetSum& sum = fleet[q];
        PriceLine line{priced[q].priced_as, priced[q].metric, std::nullopt, std::nullopt, std::nullopt, std::nullopt};
        if (sum.nodes > 0) {
            if (priced[q].additive) {
                line.usable = sum.usable;
                line.per_usable_hour = per(*hour_price * sum.nodes, line.usable);
                if (sum.nominal_nodes == sum.nodes) {
                    line.nominal = sum.nominal;
                    line.per_nominal_hour = per(*hour_price * sum.nodes, line.nominal);
                }
            } else {
                line.usable = stats::median(sum.medians);
                line.per_usable_hour = per(*hour_price, line.usable);
            }
        }
        report.fleet.push_back(std::move(line));
    }
    return report;
}

}  // namespace shakedown::analysis
