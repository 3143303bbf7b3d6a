#include "analysis/report/report_figures.hpp"

namespace shakedown::analysis {

// No figure yet: R2's size sweeps and intra-node matrix land here.
std::vector<ReportFigure> report_figures(const ReportModel&) { return {}; }

}  // namespace shakedown::analysis
