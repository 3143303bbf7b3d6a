#include "analysis/report/svg_plots.hpp"

#include "analysis/rules/verdicts.hpp"
#include "analysis/report/markup.hpp"
#include "stats/summary.hpp"
#include "telemetry/telemetry_columns.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

namespace shakedown::analysis {
namespace {

// Red (0.2 and below) -> amber (0.6) -> green (1) for a fraction of the reference: a link at
// 0.3 of its peers must look red, not orange.
std::string fraction_colour(double fraction) {
    const double f = std::clamp((fraction - 0.2) / 0.8, 0.0, 1.0);
    const int red = f < 0.5 ? 220 : static_cast<int>(220 - (f - 0.5) * 2 * 180);
    const int green = f < 0.5 ? static_cast<int>(60 + f * 2 * 120) : 180;
    return fmt::format("rgb({},{},60)", red, green);
}

std::string text(double x, double y, std::string_view content, std::string_view extra = "") {
    return fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" {}>{}</text>", x, y, extra, escape_markup(content));
}

}  // namespace

std::string svg_link_heatmap(const LinkLocalization& links, std::size_t max_nodes) {
    std::vector<std::string> nodes;
    std::set<std::string> linked;
    for (const NodeLink& link : links.links) linked.insert({link.a, link.b});
    for (const std::string& node : links.nodes)
        if (linked.count(node)) nodes.push_back(node);
    std::map<std::pair<std::string, std::string>, const NodeLink*> link_of;
    for (const NodeLink& link : links.links) {
        link_of[{link.a, link.b}] = &link;
        link_of[{link.b, link.a}] = &link;
    }
    std::string note;
    if (nodes.size() > max_nodes) {  // the nodes with the lowest median link, in run order
        std::vector<std::pair<double, std::string>> ranked;
        for (const std::string& node : nodes) {
            std::vector<double> values;
            for (const NodeLink& link : links.links)
                if (link.a == node || link.b == node) values.push_back(link.bandwidth_gbs);
            // A node without any measured link ranks lowest: it is the first to look at.
            ranked.push_back({values.empty() ? -std::numeric_limits<double>::infinity() : stats::median(values), node});
        }
        std::sort(ranked.begin(), ranked.end());
        std::set<std::string> kept;
        for (std::size_t i = 0; i < max_nodes; ++i) kept.insert(ranked[i].second);
        note = fmt::format("{} of {} nodes shown: those with the lowest median link", max_nodes, nodes.size());
        std::erase_if(nodes, [&](const std::string& node) { return !kept.count(node); });
    }
    const double cell = nodes.size() > 24 ? 12.0 : 24.0;
    const double left = 110.0;
    const double top = 110.0;
    const double size = cell * static_cast<double>(nodes.size());
    const double width = left + size + 190.0;
    const double height = top + size + 40.0;
    std::string svg = fmt::format(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"plot\" width=\"{:.0f}\" height=\"{:.0f}\" "
        "viewBox=\"0 0 {:.0f} {:.0f}\" font-family=\"sans-serif\" font-size=\"{}\">\n",
        width, height, width, height, cell > 12 ? 11 : 8);
    for (std::size_t i = 0; i < nodes.size(); ++i) {
        const double position = static_cast<double>(i) * cell + cell / 2;
        svg += text(left - 4, top + position + 3, nodes[i], "text-anchor=\"end\"") + "\n";
        svg += text(left + position + 3, top - 4, nodes[i],
                    fmt::format("transform=\"rotate(-60 {:.1f} {:.1f})\"", left + position + 3, top - 4)) + "\n";
        for (std::size_t j = 0; j < nodes.size(); ++j) {
            const double x = left + static_cast<double>(j) * cell;
            const double y = top + static_cast<double>(i) * cell;
            if (i == j) {
                svg += fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"#ddd\"/>\n", x, y,
                                   cell, cell);
                continue;
            }
            auto found = link_of.find({nodes[i], nodes[j]});
            if (found == link_of.end()) {
                svg += fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"#fff\" "
                                   "stroke=\"#eee\"/>\n", x, y, cell, cell);
                continue;
            }
            const double fraction = links.healthy_gbs > 0 ? found->second->bandwidth_gbs / links.healthy_gbs : 1.0;
            svg += fmt::format(
                "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"{}\" stroke=\"#fff\">"
                "<title>{}</title></rect>\n",
                x, y, cell, cell, fraction_colour(fraction),
                escape_markup(fmt::format("{} <-> {}: {} GB/s ({:.2f} of healthy), {} us", nodes[i], nodes[j],
                                          format_number(found->second->bandwidth_gbs), fraction,
                                          format_number(found->second->latency_us))));
        }
    }
    // Legend: the colour scale against the healthy level.
    const double legend_x = left + size + 30;
    for (int step = 0; step <= 10; ++step) {
        const double fraction = 1.0 - step / 10.0;
        svg += fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"18\" height=\"14\" fill=\"{}\"/>\n", legend_x,
                           top + step * 14.0, fraction_colour(fraction));
        if (step % 5 == 0) svg += text(legend_x + 24, top + step * 14.0 + 11, fmt::format("{:.1f}", fraction)) + "\n";
    }
    svg += text(legend_x, top - 10, fmt::format("x healthy {} GB/s", format_number(links.healthy_gbs))) + "\n";
    if (!note.empty()) svg += text(left, height - 10, note) + "\n";
    return svg + "</svg>\n";
}

std::string svg_node_bars(const std::vector<NodeMetrics>& nodes, const std::string& metric, const BarBand& band,
                          std::size_t max_nodes) {
    struct Bar {
        std::string node;
        double fraction;
        const NodeMetric* metric;
    };
    std::vector<Bar> bars;
    for (const NodeMetrics& node : nodes)
        if (const NodeMetric* found = node.find(metric); found != nullptr && found->usable_fraction())
            bars.push_back({node.node, *found->usable_fraction(), found});
    std::string note;
    if (bars.size() > max_nodes) {
        std::stable_sort(bars.begin(), bars.end(), [](const Bar& a, const Bar& b) { return a.fraction < b.fraction; });
        note = fmt::format("{} of {} nodes shown: the lowest", max_nodes, bars.size());
        bars.resize(max_nodes);
    }
    const double row = 18.0;
    const double left = 110.0;
    const double plot = 420.0;
    const double top = 26.0;
    const double scale_max = 1.2;
    const double height = top + row * static_cast<double>(bars.size()) + 34.0;
    const double width = left + plot + 250.0;
    auto x_of = [&](double fraction) { return left + plot * std::clamp(fraction, 0.0, scale_max) / scale_max; };
    std::string svg = fmt::format(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"plot\" width=\"{:.0f}\" height=\"{:.0f}\" viewBox=\"0 0 {:.0f} "
        "{:.0f}\" font-family=\"sans-serif\" font-size=\"11\">\n",
        width, height, width, height);
    svg += text(left, 14, fmt::format("{}: usable / nominal per node (its worst rank)", metric), "font-weight=\"bold\"") + "\n";
    for (std::size_t i = 0; i < bars.size(); ++i) {
        const Bar& bar = bars[i];
        const double y = top + row * static_cast<double>(i);
        const std::string colour = band.fail && bar.fraction < *band.fail   ? "#d9534f"
                                   : band.warn && bar.fraction < *band.warn ? "#f0ad4e"
                                                                            : "#5cb85c";
        svg += text(left - 4, y + 12, bar.node, "text-anchor=\"end\"") + "\n";
        svg += fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"{}\"><title>{}</title></rect>\n",
                           left, y + 2, x_of(bar.fraction) - left, row - 4, colour,
                           escape_markup(fmt::format("{}: worst rank {} of nominal {} {} = {:.2f}", bar.node,
                                                     format_number(bar.metric->worst()), format_number(*bar.metric->nominal),
                                                     bar.metric->unit, bar.fraction)));
        svg += text(x_of(bar.fraction) + 4, y + 12,
                    fmt::format("{:.2f}  ({} of {} {})", bar.fraction, format_number(bar.metric->worst()),
                                format_number(*bar.metric->nominal), bar.metric->unit)) + "\n";
    }
    const double bottom = top + row * static_cast<double>(bars.size());
    auto vertical = [&](double fraction, const char* colour, const char* label) {
        svg += fmt::format("<line x1=\"{0:.1f}\" x2=\"{0:.1f}\" y1=\"{1:.1f}\" y2=\"{2:.1f}\" stroke=\"{3}\" "
                           "stroke-dasharray=\"4 3\"/>\n", x_of(fraction), top - 4, bottom + 4, colour);
        svg += text(x_of(fraction) - 10, bottom + 16, label) + "\n";
    };
    vertical(1.0, "#333", "nominal");
    if (band.warn) vertical(*band.warn, "#f0ad4e", "warn");
    if (band.fail) vertical(*band.fail, "#d9534f", "fail");
    if (!note.empty()) svg += text(left, bottom + 30, note) + "\n";
    return svg + "</svg>\n";
}

std::string svg_timeline(const SampleTable& table, const std::vector<TimelineSeries>& series, double window_start,
                         double window_end, double margin_s) {
    const auto t_column = table.column_index(telemetry_columns::time);
    if (!t_column) return {};
    const double from = window_start - margin_s;
    const double to = window_end + margin_s;
    std::vector<const std::vector<double>*> rows;
    for (const auto& row : table.rows())
        if (row[*t_column] >= from && row[*t_column] <= to) rows.push_back(&row);
    const double left = 70.0;
    const double plot_width = 560.0;
    const double panel = 90.0;
    const double gap = 22.0;
    const double top = 10.0;
    const double height = top + (panel + gap) * static_cast<double>(series.size()) + 40.0;
    const double width = left + plot_width + 30.0;
    auto x_of = [&](double t) { return left + plot_width * (t - from) / std::max(1e-9, to - from); };
    std::string svg = fmt::format(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"plot\" width=\"{:.0f}\" height=\"{:.0f}\" viewBox=\"0 0 {:.0f} "
        "{:.0f}\" font-family=\"sans-serif\" font-size=\"11\">\n",
        width, height, width, height);
    const auto capped = table.column_index(telemetry_columns::gpu::power_capped);
    const auto thermal = table.column_index(telemetry_columns::gpu::thermal);
    for (std::size_t s = 0; s < series.size(); ++s) {
        const double y0 = top + static_cast<double>(s) * (panel + gap);
        const auto column = table.column_index(series[s].column);
        svg += fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"#eef3fb\"/>\n",
                           x_of(window_start), y0, x_of(window_end) - x_of(window_start), panel);
        svg += fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"none\" stroke=\"#999\"/>\n",
                           left, y0, plot_width, panel);
        svg += text(left + 4, y0 + 12, series[s].label, "font-weight=\"bold\"") + "\n";
        if (!column) {
            svg += text(left + 4, y0 + 40, "(not recorded)") + "\n";
            continue;
        }
        double low = INFINITY;
        double high = -INFINITY;
        for (const auto* row : rows)
            if (std::isfinite((*row)[*column])) low = std::min(low, (*row)[*column]), high = std::max(high, (*row)[*column]);
        if (series[s].reference) low = std::min(low, *series[s].reference), high = std::max(high, *series[s].reference);
        if (!std::isfinite(low)) {
            svg += text(left + 4, y0 + 40, "(no samples in this window)") + "\n";
            continue;
        }
        if (high - low < 1e-9) high = low + 1.0;
        low -= (high - low) * 0.05;
        high += (high - low) * 0.05;
        auto y_of = [&](double value) { return y0 + panel - panel * (value - low) / (high - low); };
        std::string points;
        for (const auto* row : rows)
            if (std::isfinite((*row)[*column]))
                points += fmt::format("{:.1f},{:.1f} ", x_of((*row)[*t_column]), y_of((*row)[*column]));
        svg += fmt::format("<polyline fill=\"none\" stroke=\"#1f5fa8\" stroke-width=\"1.5\" points=\"{}\"/>\n", points);
        if (series[s].reference)
            svg += fmt::format("<line x1=\"{0:.1f}\" x2=\"{1:.1f}\" y1=\"{2:.1f}\" y2=\"{2:.1f}\" stroke=\"#d9534f\" "
                               "stroke-dasharray=\"5 3\"/>\n",
                               left, left + plot_width, y_of(*series[s].reference));
        svg += text(left - 4, y0 + 10, format_number(high), "text-anchor=\"end\"") + "\n";
        svg += text(left - 4, y0 + panel, format_number(low), "text-anchor=\"end\"") + "\n";
        // Throttled samples as red ticks under the panel.
        for (const auto* row : rows) {
            const bool throttled = (capped && (*row)[*capped] >= 0.5) || (thermal && (*row)[*thermal] >= 0.5);
            if (throttled)
                svg += fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"2\" height=\"5\" fill=\"#d9534f\"/>\n",
                                   x_of((*row)[*t_column]) - 1, y0 + panel + 2);
        }
    }
    const double axis_y = height - 22;
    svg += text(x_of(window_start), axis_y, "test start", "text-anchor=\"middle\"") + "\n";
    svg += text(x_of(window_end), axis_y, fmt::format("end (+{:.0f} s)", window_end - window_start), "text-anchor=\"middle\"") + "\n";
    svg += text(left, height - 6, fmt::format("shaded: the test window; {:.0f} s either side shown; red ticks: power-capped "
                                              "or thermally throttled samples", margin_s),
                "fill=\"#555\"") + "\n";
    return svg + "</svg>\n";
}

}  // namespace shakedown::analysis
