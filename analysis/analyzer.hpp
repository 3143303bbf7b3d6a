// One analysis from start to end, the way the shakedown-analyze command runs it: load the run,
// judge it, write summary.json, print the terminal report; returns the exit code. main() only
// parses the command line, so tests call this directly as well as through the executable.
#pragma once

#include <filesystem>
#include <optional>
#include <ostream>

namespace shakedown::analysis {

struct AnalyzeOptions {
    std::filesystem::path run_dir;
    std::optional<std::filesystem::path> thresholds_file;  // overrides the built-in defaults
    std::optional<std::filesystem::path> summary_path;     // default RUN/summary.json
    bool quiet = false;
};

// Exit codes: 0 all pass (WARN included), 1 some FAIL, 2 bad input, 3 incomplete run.
// Bad input prints one line on `err`; everything else goes to `out`.
int analyze(const AnalyzeOptions& options, std::ostream& out, std::ostream& err);

}  // namespace shakedown::analysis
