// The terminal summary: a verdict table per node, then the failures and warnings with their
// reasons, the localization, baseline, price, waived tests, what made the run incomplete, the
// run folder and summary path.
#pragma once

#include "analysis/report/report_model.hpp"

#include <filesystem>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

namespace shakedown::analysis {

struct TerminalReportOptions {
    bool quiet = false;               // only the verdict line and the paths
    std::size_t max_listed = 50;      // per section; summary.json always holds everything
    std::size_t max_per_node = 5;     // findings per node and level in the terminal
};

// `outputs`: the other files written ("Report: RUN/report.html"), one line each after the summary.
void print_terminal_report(std::ostream& out, const ReportModel& model, const std::filesystem::path& summary_path,
                           const TerminalReportOptions& options,
                           const std::vector<std::pair<std::string, std::string>>& outputs = {});

}  // namespace shakedown::analysis
