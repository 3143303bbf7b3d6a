// report.html: one self-contained file (inline CSS and SVG, no script, no external reference;
// well-formed XML too, so any XML parser can check it)
// that works offline: the verdict table, the top findings with their telemetry, the allpairs
// heatmap, per-node bars against nominal, telemetry timelines around findings, fleet
// references, baseline and price. Every text from a trace is escaped.
#pragma once

#include "analysis/load/run_details.hpp"
#include "analysis/report/report_model.hpp"
#include "analysis/rules/thresholds.hpp"

#include <string>

namespace shakedown::analysis {

struct HtmlReportOptions {
    std::size_t max_findings = 100;
    std::size_t findings_per_node = 5;
    std::size_t max_timelines = 12;
    std::size_t max_bar_charts = 8;
};

// `details`: the telemetry of the nodes whose findings get a timeline, read as needed.
std::string html_report(const ReportModel& model, const Thresholds& thresholds, RunDetails& details,
                        const HtmlReportOptions& options = {});

}  // namespace shakedown::analysis
