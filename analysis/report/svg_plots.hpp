// Inline SVG plots for report.html, generated as text (every label escaped): the allpairs
// heatmap, per-node bars against nominal, and telemetry timelines around a finding's window.
#pragma once

#include "analysis/rules/link_localization.hpp"
#include "analysis/report/node_metrics.hpp"
#include "core/result.hpp"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace shakedown::analysis {

// Node x node bandwidth as a fraction of the healthy level (green 1, red 0); at most `max_nodes`
// nodes: the ones with the lowest median link first when there are more.
std::string svg_link_heatmap(const LinkLocalization& links, std::size_t max_nodes = 48);

struct BarBand {
    std::optional<double> warn;  // usable/nominal lines
    std::optional<double> fail;
};

// One horizontal bar per node: usable / nominal of `metric` (the node's median), the nominal at
// 1.0, the WARN/FAIL lines, bars coloured by band. At most `max_nodes` (the lowest first).
std::string svg_node_bars(const std::vector<NodeMetrics>& nodes, const std::string& metric, const BarBand& band,
                          std::size_t max_nodes = 40);

struct TimelineSeries {
    std::string column;  // telemetry column, e.g. "sm_clock_mhz"
    std::string label;   // "SM clock (MHz)"
    std::optional<double> reference;  // a dashed line: max clock, power limit, temperature limit
};

// Stacked line charts of `series` from `table` over [start - margin, end + margin], the test
// window shaded and power-capped/thermal samples marked red on the time axis.
std::string svg_timeline(const SampleTable& table, const std::vector<TimelineSeries>& series, double window_start,
                         double window_end, double margin_s = 5.0);

}  // namespace shakedown::analysis
