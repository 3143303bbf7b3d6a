// `shakedown-analyze export`: load a run, judge it with the same rules as the analysis (built-in
// thresholds, or a --thresholds file over them), and write its tidy rows as CSV or OpenMetrics.
// Nothing in the run folder is written; bad input is one line on `err` and exit 2, before any
// output is written.
#pragma once

#include <filesystem>
#include <optional>
#include <ostream>

namespace shakedown::analysis {

enum class ExportFormat { csv, openmetrics };

struct ExportOptions {
    std::filesystem::path run_dir;
    ExportFormat format = ExportFormat::csv;
    std::optional<std::filesystem::path> output;           // default: `out`
    std::optional<std::filesystem::path> thresholds_file;  // overrides the built-in thresholds
};

// Exit codes as the analysis: 0 written, 2 bad input (the run's verdict does not change it).
int export_run(const ExportOptions& options, std::ostream& out, std::ostream& err);

}  // namespace shakedown::analysis
