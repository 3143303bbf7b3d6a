// report.html: one self-contained file (inline CSS and SVG, no script, no external reference;
// well-formed XML too, so any XML parser can check it) that works offline and prints (A4 or
// Letter, a page per section): the header (run, dates, Slurm job, versions, thresholds and their
// sha256), the verdict table, the top findings with their telemetry, the allpairs heatmap,
// per-node bars against nominal, telemetry timelines around findings, the figures of
// report_figures(), fleet references, baseline and price, the hardware identity, every measured
// value, the waived list and a sign-off block. Rendered from the HTML template
// (report_templates.hpp); every text from a trace is escaped there.
#pragma once

#include "analysis/load/run_details.hpp"
#include "analysis/report/report_model.hpp"
#include "analysis/report/report_view.hpp"
#include "analysis/rules/settings/thresholds.hpp"

#include <string>

namespace shakedown::analysis {

struct HtmlReportOptions {
    std::size_t max_findings = 100;
    std::size_t findings_per_node = 5;
    std::size_t max_timelines = 12;
    std::size_t max_bar_charts = 8;
};

// `details`: the telemetry of the nodes whose findings get a timeline, read as needed.
// Throws InputError when the template cannot render.
std::string html_report(const ReportModel& model, const Thresholds& thresholds, RunDetails& details,
                        const ReportContext& context, const HtmlReportOptions& options = {});

}  // namespace shakedown::analysis
