#include "analysis/report/svg_plots.hpp"

#include "analysis/report/markup.hpp"
#include "analysis/rules/model/verdicts.hpp"
#include "stats/summary.hpp"
#include "telemetry/telemetry_columns.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <numbers>
#include <set>

namespace shakedown::analysis {
namespace {

std::string text(double x, double y, std::string_view content, std::string_view extra = "") {
    return fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" {}>{}</text>", x, y, extra, escape_markup(content));
}

std::string svg_open(double width, double height, int font_size) {
    return fmt::format(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"plot\" width=\"{:.0f}\" height=\"{:.0f}\" "
        "viewBox=\"0 0 {:.0f} {:.0f}\" font-family=\"sans-serif\" font-size=\"{}\">\n",
        width, height, width, height, font_size);
}

// OKLab (Ottosson 2020) to sRGB: the published matrices, then the sRGB transfer curve.
Rgb oklab_to_srgb(double lightness, double a, double b) {
    const double l = std::pow(lightness + 0.3963377774 * a + 0.2158037573 * b, 3);
    const double m = std::pow(lightness - 0.1055613458 * a - 0.0638541728 * b, 3);
    const double s = std::pow(lightness - 0.0894841775 * a - 1.2914855480 * b, 3);
    auto encode = [](double linear) {
        linear = std::clamp(linear, 0.0, 1.0);
        return linear <= 0.0031308 ? 12.92 * linear : 1.055 * std::pow(linear, 1.0 / 2.4) - 0.055;
    };
    return {encode(4.0767416621 * l - 3.3077115913 * m + 0.2309699292 * s),
            encode(-1.2684380046 * l + 2.6097574011 * m - 0.3413193965 * s),
            encode(-0.0041960863 * l - 0.7034186147 * m + 1.7076147010 * s)};
}

// Text that stays readable on a cell of the palette: dark on the light end, white on the dark.
const char* text_colour_on(double t) { return t > 0.55 ? "#111" : "#fff"; }

// 1, 2 or 5 times a power of ten, about span / count.
double nice_step(double span, int count) {
    const double raw = span / std::max(1, count);
    if (!(raw > 0.0) || !std::isfinite(raw)) return 1.0;
    const double power = std::pow(10.0, std::floor(std::log10(raw)));
    for (double factor : {1.0, 2.0, 5.0, 10.0})
        if (raw <= factor * power) return factor * power;
    return 10.0 * power;
}

std::vector<double> nice_ticks(double low, double high, int count) {
    const double step = nice_step(high - low, count);
    std::vector<double> ticks;
    for (double tick = std::ceil(low / step) * step; tick <= high + step * 1e-9 && ticks.size() < 50; tick += step)
        ticks.push_back(std::fabs(tick) < step * 1e-9 ? 0.0 : tick);
    return ticks;
}

std::string with_unit_text(double value, const std::string& unit) {
    return unit.empty() ? format_number(value) : format_number(value) + " " + unit;
}

// "8 B", "64 KiB", "16 MiB": sizes at powers of two as nccl-tests and OSU print them.
std::string size_label(double bytes) {
    const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int unit = 0;
    while (bytes >= 1024.0 && unit < 4) bytes /= 1024.0, ++unit;
    return fmt::format("{} {}", format_number(bytes), units[unit]);
}

}  // namespace

Rgb sequential_colour(double t) {
    t = std::clamp(std::isfinite(t) ? t : 0.0, 0.0, 1.0);
    // Lightness rises linearly (0.30 -> 0.92) while the hue turns from indigo (290 deg) through teal to
    // yellow (105 deg): blue-yellow is the axis red-green colour blindness keeps. The chroma dips
    // in the middle, where sRGB holds little of it at that lightness, so no colour is clipped.
    const double lightness = 0.30 + 0.62 * t;
    const double hue = (290.0 - 185.0 * t) * std::numbers::pi / 180.0;
    const double chroma = 0.11 + 0.05 * t * t - 0.04 * std::sin(std::numbers::pi * t);
    return oklab_to_srgb(lightness, chroma * std::cos(hue), chroma * std::sin(hue));
}

std::string css_colour(const Rgb& colour) {
    auto byte = [](double v) { return static_cast<int>(std::lround(std::clamp(v, 0.0, 1.0) * 255.0)); };
    return fmt::format("rgb({},{},{})", byte(colour.r), byte(colour.g), byte(colour.b));
}

std::string svg_matrix(const MatrixPlot& plot) {
    const std::size_t n = plot.labels.size();
    const double cell = n > 24 ? 12.0 : n > 12 ? 26.0 : 34.0;
    const bool cell_text = cell >= plot.min_text_cell;
    const double left = 110.0;
    const double top = 110.0;
    const double size = cell * static_cast<double>(n);
    // Room right of the cells for the legend and its title (about 6.5 px a character at 11 px).
    const double width = left + size + std::max(200.0, 30.0 + 6.5 * static_cast<double>(plot.scale_title.size()));
    const double height = top + size + 56.0;
    std::string svg = svg_open(width, height, cell > 12 ? 11 : 8);
    for (std::size_t i = 0; i < n; ++i) {
        const double position = static_cast<double>(i) * cell + cell / 2;
        svg += text(left - 4, top + position + 3, plot.labels[i], "text-anchor=\"end\"") + "\n";
        svg += text(left + position + 3, top - 4, plot.labels[i],
                    fmt::format("transform=\"rotate(-60 {:.1f} {:.1f})\"", left + position + 3, top - 4)) + "\n";
        for (std::size_t j = 0; j < n; ++j) {
            const double x = left + static_cast<double>(j) * cell;
            const double y = top + static_cast<double>(i) * cell;
            const std::optional<double> fraction =
                i < plot.fraction.size() && j < plot.fraction[i].size() ? plot.fraction[i][j] : std::nullopt;
            if (i == j || !fraction) {
                svg += fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"{}\" "
                                   "stroke=\"#eee\"/>\n", x, y, cell, cell, i == j ? "#ddd" : "#fff");
                continue;
            }
            const double t = std::clamp(*fraction, 0.0, 1.0);
            const std::string tooltip = i < plot.tooltip.size() && j < plot.tooltip[i].size() ? plot.tooltip[i][j] : "";
            svg += fmt::format("<rect class=\"cell\" x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"{}\" "
                               "stroke=\"#fff\"><title>{}</title></rect>\n",
                               x, y, cell, cell, css_colour(sequential_colour(t)), escape_markup(tooltip));
            const std::string value = i < plot.text.size() && j < plot.text[i].size() ? plot.text[i][j] : "";
            if (cell_text && !value.empty())
                svg += text(x + cell / 2, y + cell / 2 + 3.5, value,
                            fmt::format("class=\"cell-value\" text-anchor=\"middle\" font-size=\"9\" fill=\"{}\"",
                                        text_colour_on(t))) + "\n";
        }
    }
    // Legend: the palette as a vertical scale from 1.0 (top) to 0 with ticks every 0.2.
    const double legend_x = left + size + 30;
    const double legend_height = std::max(120.0, std::min(size, 220.0));
    constexpr int steps = 40;
    for (int step = 0; step < steps; ++step) {
        const double t = 1.0 - (step + 0.5) / steps;
        svg += fmt::format("<rect class=\"legend\" x=\"{:.1f}\" y=\"{:.1f}\" width=\"16\" height=\"{:.2f}\" fill=\"{}\"/>\n",
                           legend_x, top + step * legend_height / steps, legend_height / steps + 0.3,
                           css_colour(sequential_colour(t)));
    }
    for (int tick = 0; tick <= 5; ++tick) {
        const double value = 1.0 - tick * 0.2;
        const double y = top + tick * legend_height / 5;
        svg += fmt::format("<line x1=\"{0:.1f}\" x2=\"{1:.1f}\" y1=\"{2:.1f}\" y2=\"{2:.1f}\" stroke=\"#333\"/>\n",
                           legend_x + 16, legend_x + 20, y);
        svg += text(legend_x + 23, y + 4, fmt::format("{:.1f}{}", value, tick == 0 ? " or more" : "")) + "\n";
    }
    svg += text(legend_x, top - 10, plot.scale_title) + "\n";
    std::string caption = plot.note;
    if (!cell_text) {
        if (!caption.empty()) caption += "; ";
        caption += fmt::format("cells too small for their values ({} rows): hover a cell for its value, or read summary.json", n);
    }
    if (!caption.empty()) svg += text(left, height - 12, caption, "class=\"caption\" fill=\"#555\"") + "\n";
    return svg + "</svg>\n";
}

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
    MatrixPlot plot;
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
        plot.note = fmt::format("{} of {} nodes shown: those with the lowest median link", max_nodes, nodes.size());
        std::erase_if(nodes, [&](const std::string& node) { return !kept.count(node); });
    }
    plot.labels = nodes;
    const std::size_t n = nodes.size();
    plot.fraction.assign(n, std::vector<std::optional<double>>(n));
    plot.text.assign(n, std::vector<std::string>(n));
    plot.tooltip.assign(n, std::vector<std::string>(n));
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < n; ++j) {
            if (i == j) continue;
            auto found = link_of.find({nodes[i], nodes[j]});
            if (found == link_of.end()) continue;
            const double fraction = links.healthy_gbs > 0 ? found->second->bandwidth_gbs / links.healthy_gbs : 1.0;
            plot.fraction[i][j] = fraction;
            plot.text[i][j] = fmt::format("{:.2f}", fraction);
            plot.tooltip[i][j] = fmt::format("{} <-> {}: {} GB/s ({:.2f} of healthy), {} us", nodes[i], nodes[j],
                                             format_number(found->second->bandwidth_gbs), fraction,
                                             format_number(found->second->latency_us));
        }
    plot.scale_title = fmt::format("fraction of healthy {} GB/s", format_number(links.healthy_gbs));
    return svg_matrix(plot);
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
    const double height = top + row * static_cast<double>(bars.size()) + 48.0;
    const double width = left + plot + 250.0;
    auto x_of = [&](double fraction) { return left + plot * std::clamp(fraction, 0.0, scale_max) / scale_max; };
    // A rank's own usable / nominal, as the node's fraction is the worst rank's.
    auto fraction_of = [](const NodeMetric& node_metric, double value) -> std::optional<double> {
        if (!node_metric.nominal || *node_metric.nominal <= 0.0) return std::nullopt;
        if (node_metric.better == Better::lower) return value > 0.0 ? std::optional<double>(*node_metric.nominal / value) : std::nullopt;
        return value / *node_metric.nominal;
    };
    std::string svg = svg_open(width, height, 11);
    svg += text(left, 14, fmt::format("{}: usable / nominal per node (bar: its worst rank; ticks: each GPU or rank)", metric),
                "font-weight=\"bold\"") + "\n";
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
        for (const NodeMetric::Device& device : bar.metric->devices) {
            const auto fraction = fraction_of(*bar.metric, device.value);
            if (!fraction) continue;
            const std::string who =
                device.gpu ? fmt::format("rank {} GPU {}", device.rank, *device.gpu) : fmt::format("rank {}", device.rank);
            svg += fmt::format("<line class=\"gpu-tick\" x1=\"{0:.1f}\" x2=\"{0:.1f}\" y1=\"{1:.1f}\" y2=\"{2:.1f}\" "
                               "stroke=\"#222\" stroke-width=\"1.5\"><title>{3}</title></line>\n",
                               x_of(*fraction), y, y + row, escape_markup(fmt::format(
                                   "{} {}: {} {} = {:.2f} of nominal", bar.node, who, format_number(device.value),
                                   bar.metric->unit, *fraction)));
        }
        svg += text(left + plot + 6, y + 12,
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
    svg += text(left, bottom + 30, "black ticks: each rank's (GPU's) own usable / nominal", "fill=\"#555\"") + "\n";
    if (!note.empty()) svg += text(left, bottom + 44, note) + "\n";
    return svg + "</svg>\n";
}

std::string svg_timeline(const SampleTable& table, const std::vector<TimelineSeries>& series, double window_start,
                         double window_end, double margin_s, std::optional<double> run_start) {
    const auto t_column = table.column_index(telemetry_columns::time);
    if (!t_column) return {};
    const double from = window_start - margin_s;
    const double to = window_end + margin_s;
    double origin = run_start.value_or(window_start);
    if (!run_start)
        for (const auto& row : table.rows())
            if (std::isfinite(row[*t_column])) origin = std::min(origin, row[*t_column]);
    std::vector<const std::vector<double>*> rows;
    for (const auto& row : table.rows())
        if (row[*t_column] >= from && row[*t_column] <= to) rows.push_back(&row);
    const double left = 86.0;
    const double plot_width = 560.0;
    const double panel = 90.0;
    const double gap = 34.0;
    const double top = 10.0;
    const double height = top + (panel + gap) * static_cast<double>(series.size()) + 44.0;
    const double width = left + plot_width + 30.0;
    auto x_of = [&](double t) { return left + plot_width * (t - from) / std::max(1e-9, to - from); };
    std::string svg = svg_open(width, height, 11);
    const auto capped = table.column_index(telemetry_columns::gpu::power_capped);
    const auto thermal = table.column_index(telemetry_columns::gpu::thermal);
    // Time ticks in seconds from the run's start, the same under every panel.
    const std::vector<double> time_ticks = nice_ticks(from - origin, to - origin, 6);
    for (std::size_t s = 0; s < series.size(); ++s) {
        const double y0 = top + static_cast<double>(s) * (panel + gap);
        const auto column = table.column_index(series[s].column);
        svg += fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"#eef3fb\"/>\n",
                           x_of(window_start), y0, x_of(window_end) - x_of(window_start), panel);
        svg += fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"none\" stroke=\"#999\"/>\n",
                           left, y0, plot_width, panel);
        for (double tick : time_ticks) {
            const double x = x_of(origin + tick);
            svg += fmt::format("<line x1=\"{0:.1f}\" x2=\"{0:.1f}\" y1=\"{1:.1f}\" y2=\"{2:.1f}\" stroke=\"#666\"/>\n", x,
                               y0 + panel, y0 + panel + 4);
            svg += text(x, y0 + panel + 24, fmt::format("{} s", format_number(tick)),
                        "class=\"x-tick\" text-anchor=\"middle\" font-size=\"9\"") + "\n";
        }
        svg += text(left + 4, y0 + 12, series[s].label, "font-weight=\"bold\"") + "\n";
        if (!column) {
            svg += text(left + 4, y0 + 40, "(not recorded)") + "\n";
            continue;
        }
        const std::string unit = table.columns()[*column].unit;
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
        for (double tick : nice_ticks(low, high, 4)) {
            const double y = y_of(tick);
            svg += fmt::format("<line x1=\"{0:.1f}\" x2=\"{1:.1f}\" y1=\"{2:.1f}\" y2=\"{2:.1f}\" stroke=\"#ddd\"/>\n", left,
                               left + plot_width, y);
            svg += text(left - 4, y + 4, with_unit_text(tick, unit), "class=\"y-tick\" text-anchor=\"end\" font-size=\"9\"") + "\n";
        }
        std::string points;
        for (const auto* row : rows)
            if (std::isfinite((*row)[*column]))
                points += fmt::format("{:.1f},{:.1f} ", x_of((*row)[*t_column]), y_of((*row)[*column]));
        svg += fmt::format("<polyline fill=\"none\" stroke=\"#1f5fa8\" stroke-width=\"1.5\" points=\"{}\"/>\n", points);
        if (series[s].reference)
            svg += fmt::format("<line x1=\"{0:.1f}\" x2=\"{1:.1f}\" y1=\"{2:.1f}\" y2=\"{2:.1f}\" stroke=\"#d9534f\" "
                               "stroke-dasharray=\"5 3\"/>\n",
                               left, left + plot_width, y_of(*series[s].reference));
        // Throttled samples as red ticks under the panel.
        for (const auto* row : rows) {
            const bool throttled = (capped && (*row)[*capped] >= 0.5) || (thermal && (*row)[*thermal] >= 0.5);
            if (throttled)
                svg += fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"2\" height=\"5\" fill=\"#d9534f\"/>\n",
                                   x_of((*row)[*t_column]) - 1, y0 + panel + 2);
        }
    }
    const double axis_y = height - 24;
    svg += text(left + plot_width / 2, axis_y,
                fmt::format("time: seconds from the run's start{}; the test ran {} s to {} s", run_start ? "" : " (its first telemetry sample)",
                            format_number(window_start - origin), format_number(window_end - origin)),
                "text-anchor=\"middle\"") + "\n";
    svg += text(left, height - 8, fmt::format("shaded: the test window; {:.0f} s either side shown; red ticks: power-capped "
                                              "or thermally throttled samples", margin_s),
                "fill=\"#555\"") + "\n";
    return svg + "</svg>\n";
}

std::string svg_sweep(const SweepPlot& plot) {
    double x_low = INFINITY, x_high = -INFINITY, y_low = INFINITY, y_high = -INFINITY;
    for (const SweepSeries& series : plot.series)
        for (const auto& [x, y] : series.points)
            if (x > 0 && y > 0 && std::isfinite(x) && std::isfinite(y)) {
                x_low = std::min(x_low, x), x_high = std::max(x_high, x);
                y_low = std::min(y_low, y), y_high = std::max(y_high, y);
            }
    if (!std::isfinite(x_low)) return {};
    for (const SweepReference& reference : plot.references)
        if (reference.value > 0 && std::isfinite(reference.value))
            y_low = std::min(y_low, reference.value), y_high = std::max(y_high, reference.value);
    // Whole powers of two on x, whole decades on y.
    const double lx0 = std::floor(std::log2(x_low));
    const double lx1 = std::max(lx0 + 1, std::ceil(std::log2(x_high)));
    const double ly0 = std::floor(std::log10(y_low));
    const double ly1 = std::max(ly0 + 1, std::ceil(std::log10(y_high)));
    const double left = 80.0, top = 28.0, plot_width = 520.0, plot_height = 240.0;
    const double legend_x = left + plot_width + 16;
    const double width = legend_x + 220.0;
    const double height = top + plot_height + 56.0;
    auto x_of = [&](double x) { return left + plot_width * (std::log2(x) - lx0) / (lx1 - lx0); };
    auto y_of = [&](double y) { return top + plot_height - plot_height * (std::log10(y) - ly0) / (ly1 - ly0); };
    std::string svg = svg_open(width, height, 11);
    svg += text(left, 16, plot.title, "font-weight=\"bold\"") + "\n";
    svg += fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"none\" stroke=\"#999\"/>\n",
                       left, top, plot_width, plot_height);
    const double x_stride = std::max(1.0, std::ceil((lx1 - lx0) / 10.0));
    for (double e = lx0; e <= lx1 + 1e-9; e += x_stride) {
        const double x = x_of(std::exp2(e));
        svg += fmt::format("<line x1=\"{0:.1f}\" x2=\"{0:.1f}\" y1=\"{1:.1f}\" y2=\"{2:.1f}\" stroke=\"#eee\"/>\n", x, top,
                           top + plot_height);
        svg += text(x, top + plot_height + 14, size_label(std::exp2(e)), "class=\"x-tick\" text-anchor=\"middle\" font-size=\"9\"") + "\n";
    }
    for (double e = ly0; e <= ly1 + 1e-9; e += 1.0) {
        const double y = y_of(std::pow(10.0, e));
        svg += fmt::format("<line x1=\"{0:.1f}\" x2=\"{1:.1f}\" y1=\"{2:.1f}\" y2=\"{2:.1f}\" stroke=\"#eee\"/>\n", left,
                           left + plot_width, y);
        svg += text(left - 4, y + 4, format_number(std::pow(10.0, e)), "class=\"y-tick\" text-anchor=\"end\" font-size=\"9\"") + "\n";
    }
    svg += text(left + plot_width / 2, top + plot_height + 32, "message size (bytes, log scale)", "text-anchor=\"middle\"") + "\n";
    svg += text(16, top + plot_height / 2, plot.y_label + ", log scale",
                fmt::format("text-anchor=\"middle\" transform=\"rotate(-90 16 {:.1f})\"", top + plot_height / 2)) + "\n";
    // Series in the palette's dark-to-light order (never its lightest end, which the white ground
    // hides), each with its own dash pattern too: neighbours in lightness stay apart in grey.
    constexpr std::array<const char*, 4> dashes{"none", "7 3", "2 2", "9 3 2 3"};
    for (std::size_t s = 0; s < plot.series.size(); ++s) {
        const double t = plot.series.size() > 1 ? 0.8 * static_cast<double>(s) / static_cast<double>(plot.series.size() - 1) : 0.0;
        const std::string colour = css_colour(sequential_colour(t));
        const char* dash = dashes[s % dashes.size()];
        std::string points;
        for (const auto& [x, y] : plot.series[s].points)
            if (x > 0 && y > 0 && std::isfinite(x) && std::isfinite(y)) points += fmt::format("{:.1f},{:.1f} ", x_of(x), y_of(y));
        svg += fmt::format("<polyline class=\"sweep\" fill=\"none\" stroke=\"{}\" stroke-width=\"2\" stroke-dasharray=\"{}\" "
                           "points=\"{}\"/>\n", colour, dash, points);
        const double ly = top + 8 + 16.0 * static_cast<double>(s);
        svg += fmt::format("<line x1=\"{0:.1f}\" x2=\"{1:.1f}\" y1=\"{2:.1f}\" y2=\"{2:.1f}\" stroke=\"{3}\" stroke-width=\"2\" "
                           "stroke-dasharray=\"{4}\"/>\n", legend_x, legend_x + 24, ly, colour, dash);
        svg += text(legend_x + 30, ly + 4, plot.series[s].label) + "\n";
    }
    for (std::size_t r = 0; r < plot.references.size(); ++r) {
        const SweepReference& reference = plot.references[r];
        if (!(reference.value > 0) || !std::isfinite(reference.value)) continue;
        const double y = y_of(reference.value);
        if (reference.at_size && *reference.at_size > 0) {
            const double x = x_of(std::clamp(*reference.at_size, std::exp2(lx0), std::exp2(lx1)));
            svg += fmt::format("<path class=\"reference\" d=\"M {0:.1f} {1:.1f} l 6 6 l -6 6 l -6 -6 z\" fill=\"none\" "
                               "stroke=\"#b5651d\" stroke-width=\"1.5\"><title>{2}</title></path>\n",
                               x, y - 6, escape_markup(reference.label));
            svg += text(x - 8, y + 4, reference.label, "text-anchor=\"end\" font-size=\"9\" fill=\"#b5651d\"") + "\n";
            continue;
        }
        svg += fmt::format("<line class=\"reference\" x1=\"{0:.1f}\" x2=\"{1:.1f}\" y1=\"{2:.1f}\" y2=\"{2:.1f}\" stroke=\"#b5651d\" "
                           "stroke-dasharray=\"6 3\" stroke-width=\"1.5\"/>\n", left, left + plot_width, y);
        svg += text(left + plot_width - 4, y - 4, reference.label, "text-anchor=\"end\" fill=\"#b5651d\"") + "\n";
    }
    return svg + "</svg>\n";
}

std::string svg_scaling(const std::string& title, const std::vector<ScalingPoint>& points) {
    if (points.size() < 2) return {};
    int most = 1;
    double highest = 1.0;
    for (const ScalingPoint& point : points) {
        most = std::max(most, point.gpus);
        if (std::isfinite(point.measured)) highest = std::max(highest, point.measured);
        if (std::isfinite(point.predicted)) highest = std::max(highest, point.predicted);
    }
    const double lx1 = std::max(1.0, std::ceil(std::log2(static_cast<double>(most))));
    const double y_top = std::ceil(std::min(highest, 2.0) * 5.0) / 5.0 + 0.2;
    const double left = 64.0, top = 28.0, plot_width = 420.0, plot_height = 220.0;
    const double legend_x = left + plot_width + 16;
    const double width = legend_x + 200.0, height = top + plot_height + 56.0;
    auto x_of = [&](double gpus) { return left + plot_width * std::log2(std::max(1.0, gpus)) / lx1; };
    auto y_of = [&](double y) { return top + plot_height - plot_height * std::clamp(y, 0.0, y_top) / y_top; };
    std::string svg = svg_open(width, height, 11);
    svg += text(left, 16, title, "font-weight=\"bold\"") + "\n";
    svg += fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"none\" stroke=\"#999\"/>\n",
                       left, top, plot_width, plot_height);
    for (double e = 0; e <= lx1 + 1e-9; e += 1.0) {
        const double x = x_of(std::exp2(e));
        svg += fmt::format("<line x1=\"{0:.1f}\" x2=\"{0:.1f}\" y1=\"{1:.1f}\" y2=\"{2:.1f}\" stroke=\"#eee\"/>\n", x, top,
                           top + plot_height);
        svg += text(x, top + plot_height + 14, format_number(std::exp2(e)), "class=\"x-tick\" text-anchor=\"middle\" font-size=\"9\"") + "\n";
    }
    for (double y = 0.0; y <= y_top + 1e-9; y += 0.2) {
        svg += fmt::format("<line x1=\"{0:.1f}\" x2=\"{1:.1f}\" y1=\"{2:.1f}\" y2=\"{2:.1f}\" stroke=\"{3}\"/>\n", left,
                           left + plot_width, y_of(y), std::abs(y - 1.0) < 1e-9 ? "#999" : "#eee");
        svg += text(left - 4, y_of(y) + 4, format_number(y), "class=\"y-tick\" text-anchor=\"end\" font-size=\"9\"") + "\n";
    }
    svg += text(left + plot_width / 2, top + plot_height + 32, "GPUs (ranks), log scale", "text-anchor=\"middle\"") + "\n";
    svg += text(16, top + plot_height / 2, "efficiency (T1 / step)",
                fmt::format("text-anchor=\"middle\" transform=\"rotate(-90 16 {:.1f})\"", top + plot_height / 2)) + "\n";
    const std::string measured_colour = css_colour(sequential_colour(0.0));
    const std::string predicted_colour = css_colour(sequential_colour(0.6));
    for (const ScalingPoint& point : points) {
        const double x = x_of(point.gpus);
        if (std::isfinite(point.predicted))
            svg += fmt::format("<path class=\"predicted\" d=\"M {0:.1f} {1:.1f} l 5 5 l -5 5 l -5 -5 z\" fill=\"none\" stroke=\"{2}\" "
                               "stroke-width=\"1.5\"><title>{3}: predicted {4}</title></path>\n",
                               x, y_of(point.predicted) - 5, predicted_colour, escape_markup(point.label), format_number(point.predicted));
        if (std::isfinite(point.measured))
            svg += fmt::format("<circle class=\"measured\" cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"3.5\" fill=\"{}\"><title>{}: measured {}</title></circle>\n",
                               x, y_of(point.measured), measured_colour, escape_markup(point.label), format_number(point.measured));
    }
    svg += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"3.5\" fill=\"{}\"/>\n", legend_x + 12, top + 8, measured_colour);
    svg += text(legend_x + 24, top + 12, "measured") + "\n";
    svg += fmt::format("<path d=\"M {0:.1f} {1:.1f} l 5 5 l -5 5 l -5 -5 z\" fill=\"none\" stroke=\"{2}\" stroke-width=\"1.5\"/>\n",
                       legend_x + 12, top + 19, predicted_colour);
    svg += text(legend_x + 24, top + 28, "predicted from this run") + "\n";
    return svg + "</svg>\n";
}

}  // namespace shakedown::analysis
