// A run folder analysed in process through shakedown-analyze's own entry point, with what it
// printed and wrote (summary.json, drain.txt), and the lookups the scenario tests share.
#pragma once

#include "analysis/analyzer.hpp"
#include "analysis_fixtures.hpp"
#include "bench/synthetic_run.hpp"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>
#include <vector>

namespace shakedown::analysis::testing {

struct AnalysisOutcome {
    int exit_code = -1;
    std::string out;
    std::string err;
    nlohmann::json summary;  // null when none was written
    std::string drain;       // "" when none was written
};

AnalysisOutcome analyze_in_process(const AnalyzeOptions& options);

// The synthetic generator's run folder TEMP/NAME, with few sample rows and a slow telemetry rate
// (what the rules need, quickly written).
std::filesystem::path synthetic_run(const TempDir& temp, const std::string& name, bench::SyntheticRunSpec spec);

// The findings in summary.json, of one node or (node "") of all.
std::vector<nlohmann::json> findings_of(const AnalysisOutcome& analysis, const std::string& node = "");
// "pass", "warn", "fail", ..., or "(no such node)".
std::string verdict_of(const AnalysisOutcome& analysis, const std::string& node);

}  // namespace shakedown::analysis::testing
