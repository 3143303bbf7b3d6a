// What a test whose rank-0 samples sweep message sizes declares about the figures the report draws
// from them (analysis/report/report_figures), so that one loop draws every such test's plots: which
// columns hold the size and the figure, how the rows split into series, which rows are left out,
// and which references a plot is drawn against. The test declares this beside its other names (its
// *_names.hpp); the report reads the declaration, never the test's keys or columns as strings.
#pragma once

#include <span>
#include <string_view>

namespace shakedown {

// How a sweep's rows split into series.
enum class SweepSeriesSplit {
    none,                 // one series
    intra_or_inter_node,  // by a 0/1 column: "intra-node" (1) and "inter-node" (0)
    by_index_name,        // by an index column, each series named by its index into index_names
};

// A dashed line at rank 0's nominal of this metric, where the run carries one.
struct SweepNominalLine {
    std::string_view metric;
    std::string_view label;  // "inter-node": "nominal inter-node 25 GB/s"
};

// A point at a built-in calibrated reference (analysis/rules/settings/calibration) for this metric, drawn
// at the message size the reference was measured at.
struct SweepCalibratedPoint {
    std::string_view metric;
    double bytes = 0.0;
};

struct SweepFigureDeclaration {
    std::string_view test;  // the test's key: whose rank-0 samples
    std::string_view id;    // the figure's id in report.html
    std::string_view title;
    std::string_view y_label;
    std::string_view size_column;   // the message size, bytes
    std::string_view value_column;  // the figure plotted: per series and size, the median over the rows
    SweepSeriesSplit split = SweepSeriesSplit::none;
    std::string_view split_column;
    std::span<const std::string_view> index_names;  // by_index_name: the series' names in index order
    std::string_view skip_column;                   // rows where this 0/1 column is 1 are left out (empty: none)
    std::span<const SweepNominalLine> nominal_lines;
    std::span<const SweepCalibratedPoint> calibrated_points;
    std::string_view calibrated_label;  // "all_reduce": "calibrated all_reduce 370 GB/s"
    std::string_view caption;
};

}  // namespace shakedown
