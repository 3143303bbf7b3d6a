// Inline SVG plots for report.html, generated as text (every label escaped): the allpairs
// heatmap and other matrices, per-node bars against nominal with a mark per GPU, telemetry
// timelines around a finding's window, and size sweeps on a log axis. Colours of values come
// from one sequential palette whose lightness rises with the value, so the plots read the same
// in grey and to colour-blind readers (no red/green pair carries a value).
#pragma once

#include "analysis/report/node_metrics.hpp"
#include "analysis/rules/links/link_localization.hpp"
#include "core/result.hpp"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace shakedown::analysis {

struct Rgb {
    double r = 0.0;  // 0..1, sRGB
    double g = 0.0;
    double b = 0.0;
};

// The sequential palette at t in [0, 1] (clamped): dark indigo (0) through teal to light yellow (1),
// computed in OKLab with lightness rising linearly (a perceptually uniform ramp, as viridis is).
Rgb sequential_colour(double t);
std::string css_colour(const Rgb& colour);  // "rgb(47,31,96)"

// A square matrix of cells coloured by `fraction` (0..1 of a reference, clamped) with each cell's
// text printed in it when the cells are large enough (else the caption says so), and a legend.
struct MatrixPlot {
    std::vector<std::string> labels;                      // rows and columns, in order
    std::vector<std::vector<std::optional<double>>> fraction;  // [row][column]; nullopt: not measured
    std::vector<std::vector<std::string>> text;           // [row][column]: the printed value ("" none)
    std::vector<std::vector<std::string>> tooltip;        // [row][column]: the cell's <title>
    std::string scale_title;                              // above the legend: "fraction of healthy 24 GB/s"
    std::string note;                                     // a line under the plot ("" none)
    double min_text_cell = 20.0;                          // smaller cells carry no text
};
std::string svg_matrix(const MatrixPlot& plot);

// Node x node bandwidth as a fraction of the healthy level, each cell's fraction printed (2
// digits); at most `max_nodes` nodes: the ones with the lowest median link first when there are more.
std::string svg_link_heatmap(const LinkLocalization& links, std::size_t max_nodes = 48);

struct BarBand {
    std::optional<double> warn;  // usable/nominal lines
    std::optional<double> fail;
};

// One horizontal bar per node: usable / nominal of `metric` (the node's worst rank), the nominal
// at 1.0, the WARN/FAIL lines, bars coloured by band, and a tick per rank (GPU) at its own
// usable / nominal. At most `max_nodes` (the lowest first).
std::string svg_node_bars(const std::vector<NodeMetrics>& nodes, const std::string& metric, const BarBand& band,
                          std::size_t max_nodes = 40);

struct TimelineSeries {
    std::string column;  // telemetry column, e.g. "sm_clock_mhz"
    std::string label;   // "SM clock (MHz)"
    std::optional<double> reference;  // a dashed line: max clock, power limit, temperature limit
};

// Stacked line charts of `series` from `table` over [start - margin, end + margin], the test
// window shaded and power-capped/thermal samples marked red on the time axis. The time axis is
// in seconds from the run's start (`run_start`, else the table's first sample), with ticks; each
// panel's y axis has ticks with the column's unit.
std::string svg_timeline(const SampleTable& table, const std::vector<TimelineSeries>& series, double window_start,
                         double window_end, double margin_s = 5.0, std::optional<double> run_start = std::nullopt);

// Figures over a message-size sweep (OSU / nccl-tests style): x the size in bytes on a log axis,
// y on a log axis, one line per series, a dashed horizontal line per reference.
struct SweepSeries {
    std::string label;
    std::vector<std::pair<double, double>> points;  // (size B, value), sizes ascending
};
struct SweepReference {
    std::string label;  // "nominal 24 GB/s", "calibrated 313.7 GB/s at 512 MiB"
    double value = 0.0;
    std::optional<double> at_size;  // a reference for one size (a marker there); else a line across
};
struct SweepPlot {
    std::string title;
    std::string y_label;  // "bandwidth (GB/s)"
    std::vector<SweepSeries> series;
    std::vector<SweepReference> references;
};
// "" when no series has a point: no empty figure.
std::string svg_sweep(const SweepPlot& plot);

// Scaling efficiency against the GPUs (ranks) of each scope: x the count on a log2 axis, y the
// efficiency from 0 (a line at 1: N times one), a filled dot for what was measured and an open
// diamond for what the run's own figures predicted. "" with fewer than two points.
struct ScalingPoint {
    std::string label;  // "job (4 node(s))"
    int gpus = 1;
    double measured = 1.0;
    double predicted = 1.0;
};
std::string svg_scaling(const std::string& title, const std::vector<ScalingPoint>& points);

}  // namespace shakedown::analysis
