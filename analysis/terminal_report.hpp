// The terminal summary: a verdict table per node, then the failures and warnings with their
// reasons, the waived tests, what made the run incomplete, the run folder and summary path.
#pragma once

#include "analysis/analysis_result.hpp"
#include "analysis/judgement.hpp"
#include "analysis/run_data.hpp"

#include <filesystem>
#include <ostream>

namespace shakedown::analysis {

struct TerminalReportOptions {
    bool quiet = false;               // only the verdict line and the paths
    std::size_t max_listed = 50;      // per section; summary.json always holds everything
    std::size_t max_per_node = 5;     // findings per node and level in the terminal
};

// `outputs`: the other files written ("Report: RUN/report.html"), one line each after the summary.
void print_terminal_report(std::ostream& out, const LoadedRun& run, const AnalysisResult& result,
                           const std::filesystem::path& summary_path, const TerminalReportOptions& options,
                           const std::vector<std::pair<std::string, std::string>>& outputs = {});

// "node0002 rank 8 GPU 0 dgemm_fp64: <reason>": a finding in one line.
std::string describe_finding(const Finding& finding);
// The price figures as text lines (also used by the markdown report).
std::vector<std::string> price_lines(const PriceReport& price);

// "0-3,8,10-11": the compact form of a sorted rank list.
std::string compact_rank_list(const std::vector<int>& ranks);

}  // namespace shakedown::analysis
