// Figures of the report beyond the per-node bars, heatmap and timelines (size sweeps, the
// intra-node matrix): each an inline SVG with a title, an anchor id and a caption, which the HTML
// template renders in its own section, in this order.
#pragma once

#include "analysis/report/report_model.hpp"

#include <string>
#include <vector>

namespace shakedown::analysis {

struct ReportFigure {
    std::string id, title, svg, caption;
};

std::vector<ReportFigure> report_figures(const ReportModel& model);

}  // namespace shakedown::analysis
