// The report's plots: the heatmap's palette is a lightness ramp (not red against green) and each
// cell prints its value; per-GPU ticks on the node bars; the timeline's axes carry tick labels.
#include "analysis/report/svg_plots.hpp"
#include "telemetry/telemetry_columns.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace shakedown::analysis {
namespace {

std::size_t count(const std::string& text, const std::string& what) {
    std::size_t n = 0;
    for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
    return n;
}

// Relative luminance (sRGB decoded), what a grey-scale print or a colour-blind reader still sees.
double luminance(const Rgb& c) {
    auto linear = [](double v) { return v <= 0.04045 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4); };
    return 0.2126 * linear(c.r) + 0.7152 * linear(c.g) + 0.0722 * linear(c.b);
}

TEST(SvgPlots, PaletteIsADarkBlueToLightYellowRampWhoseLightnessRises) {
    const Rgb low = sequential_colour(0.0);
    const Rgb high = sequential_colour(1.0);
    EXPECT_GT(low.b, low.r);  // indigo: blue over red
    EXPECT_GT(low.b, low.g);
    EXPECT_GT(high.r, 0.8);   // light yellow: red and green high, blue low
    EXPECT_GT(high.g, 0.8);
    EXPECT_LT(high.b, 0.5);
    EXPECT_GT(luminance(high) / luminance(low), 8.0);  // the ends differ by lightness, not hue alone
    double previous = -1.0;
    for (int step = 0; step <= 20; ++step) {
        const double now = luminance(sequential_colour(step / 20.0));
        EXPECT_GT(now, previous) << "step " << step;
        previous = now;
    }
    EXPECT_EQ(css_colour(sequential_colour(-3.0)), css_colour(low));  // clamped
    EXPECT_EQ(css_colour({1.0, 0.0, 0.5}), "rgb(255,0,128)");
}

LinkLocalization four_nodes(double slow_gbs) {
    LinkLocalization links;
    links.analyzed = true;
    links.nodes = {"n0", "n1", "n2", "n3"};
    links.healthy_gbs = 20.0;
    for (int a = 0; a < 4; ++a)
        for (int b = a + 1; b < 4; ++b) {
            NodeLink link;
            link.a = links.nodes[a];
            link.b = links.nodes[b];
            link.bandwidth_gbs = a == 0 && b == 3 ? slow_gbs : 20.0;
            link.latency_us = 2.0;
            links.links.push_back(link);
        }
    return links;
}

TEST(SvgPlots, HeatmapPrintsEachCellsFractionWithTheSequentialPaletteAndALegend) {
    const std::string svg = svg_link_heatmap(four_nodes(6.0));
    EXPECT_EQ(count(svg, "class=\"cell\""), 12u);        // 4 x 4 without the diagonal
    EXPECT_EQ(count(svg, "class=\"cell-value\""), 12u);  // every cell has its value
    EXPECT_EQ(count(svg, ">0.30</text>"), 2u);           // the slow link, both directions
    EXPECT_EQ(count(svg, ">1.00</text>"), 10u);
    EXPECT_NE(svg.find(css_colour(sequential_colour(0.3))), std::string::npos);
    EXPECT_NE(svg.find(css_colour(sequential_colour(1.0))), std::string::npos);
    EXPECT_EQ(svg.find("rgb(220,"), std::string::npos);  // no red end of the old red-green scale
    EXPECT_GT(count(svg, "class=\"legend\""), 10u);
    EXPECT_NE(svg.find("fraction of healthy 20 GB/s"), std::string::npos);
    EXPECT_EQ(svg.find("cells too small"), std::string::npos);
}

TEST(SvgPlots, HeatmapTooDenseForTextSaysSoInItsCaption) {
    LinkLocalization links;
    links.analyzed = true;
    links.healthy_gbs = 20.0;
    for (int i = 0; i < 30; ++i) links.nodes.push_back("n" + std::to_string(i));
    for (int a = 0; a < 30; ++a)
        for (int b = a + 1; b < 30; ++b) links.links.push_back({.a = links.nodes[a], .b = links.nodes[b], .bandwidth_gbs = 20.0});
    const std::string svg = svg_link_heatmap(links);
    EXPECT_EQ(count(svg, "class=\"cell-value\""), 0u);
    EXPECT_NE(svg.find("cells too small for their values (30 rows)"), std::string::npos);
}

TEST(SvgPlots, NodeBarsCarryATickPerGpuSoOneBadGpuOfEightShows) {
    NodeMetric metric;
    metric.name = "dgemm_fp64.tflops";
    metric.unit = "TFLOP/s";
    metric.nominal = 67.0;
    for (int gpu = 0; gpu < 8; ++gpu) metric.devices.push_back({gpu, gpu, gpu == 5 ? 40.0 : 60.0});
    metric.ranks = 8;
    metric.min = 40.0;
    metric.max = 60.0;
    NodeMetric healthy = metric;
    healthy.devices.clear();
    for (int gpu = 0; gpu < 8; ++gpu) healthy.devices.push_back({8 + gpu, gpu, 60.0});
    healthy.min = 60.0;
    const std::vector<NodeMetrics> nodes = {{"node0000", {metric}}, {"node0001", {healthy}}};
    const std::string svg = svg_node_bars(nodes, "dgemm_fp64.tflops", {.warn = 0.8, .fail = 0.6});
    EXPECT_EQ(count(svg, "class=\"gpu-tick\""), 16u);
    EXPECT_NE(svg.find("node0000 rank 5 GPU 5: 40 TFLOP/s = 0.60 of nominal"), std::string::npos) << svg;
    EXPECT_EQ(count(svg, "= 0.90 of nominal"), 15u);
}

TEST(SvgPlots, TimelineHasTimeAndValueTicksWithUnits) {
    SampleTable table({{std::string(telemetry_columns::time), "s"}, {"sm_clock_mhz", "MHz"}});
    const double start = 1764480000.0;
    for (int i = 0; i <= 60; ++i) table.add_row({start + i, 1500.0 + 5.0 * i});
    const std::string svg = svg_timeline(table, {{"sm_clock_mhz", "SM clock (MHz)", 1980.0}}, start + 20, start + 40);
    EXPECT_GE(count(svg, "class=\"x-tick\""), 4u);
    EXPECT_NE(svg.find(">20 s</text>"), std::string::npos) << svg;  // from the run's (table's) start
    EXPECT_NE(svg.find(">30 s</text>"), std::string::npos);
    EXPECT_GE(count(svg, "class=\"y-tick\""), 2u);
    EXPECT_NE(svg.find(" MHz</text>"), std::string::npos);
    EXPECT_NE(svg.find("seconds from the run&#39;s start"), std::string::npos);
    // An explicit run start moves the axis.
    const std::string later = svg_timeline(table, {{"sm_clock_mhz", "SM clock (MHz)", std::nullopt}}, start + 20, start + 40,
                                           5.0, start - 100);
    EXPECT_NE(later.find(">120 s</text>"), std::string::npos) << later;
}

}  // namespace
}  // namespace shakedown::analysis
