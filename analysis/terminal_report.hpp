// The terminal summary: a verdict table per node, then the failures and warnings with their
// reasons, the waived tests, what made the run incomplete, the run folder and summary path.
#pragma once

#include "analysis/judgement.hpp"
#include "analysis/run_data.hpp"

#include <filesystem>
#include <ostream>

namespace shakedown::analysis {

struct TerminalReportOptions {
    bool quiet = false;               // only the verdict line and the paths
    std::size_t max_listed = 50;      // per section; summary.json always holds everything
};

void print_terminal_report(std::ostream& out, const LoadedRun& run, const Judgement& judgement,
                           const std::filesystem::path& summary_path, const TerminalReportOptions& options);

// "0-3,8,10-11": the compact form of a sorted rank list.
std::string compact_rank_list(const std::vector<int>& ranks);

}  // namespace shakedown::analysis
