#include "analysis_outcome.hpp"

#include <sstream>

namespace shakedown::analysis::testing {

AnalysisOutcome analyze_in_process(const AnalyzeOptions& options) {
    std::ostringstream out;
    std::ostringstream err;
    AnalysisOutcome result;
    result.exit_code = analyze(options, out, err);
    result.out = out.str();
    result.err = err.str();
    const auto summary = options.summary_path.value_or(options.run_dir / "summary.json");
    if (std::filesystem::exists(summary)) result.summary = nlohmann::json::parse(read_text(summary));
    const auto drain = options.drain_path.value_or(options.run_dir / "drain.txt");
    if (std::filesystem::exists(drain)) result.drain = read_text(drain);
    return result;
}

std::filesystem::path synthetic_run(const TempDir& temp, const std::string& name, bench::SyntheticRunSpec spec) {
    const auto dir = temp.path() / name;
    spec.sample_rows = 4;
    spec.telemetry_hz = 2.0;
    bench::write_synthetic_run(dir, spec);
    return dir;
}

std::vector<nlohmann::json> findings_of(const AnalysisOutcome& analysis, const std::string& node) {
    std::vector<nlohmann::json> findings;
    for (const auto& entry : analysis.summary["nodes"])
        if (node.empty() || entry["node"] == node)
            for (const auto& finding : entry["findings"]) findings.push_back(finding);
    return findings;
}

std::string verdict_of(const AnalysisOutcome& analysis, const std::string& node) {
    for (const auto& entry : analysis.summary["nodes"])
        if (entry["node"] == node) return entry["verdict"];
    return "(no such node)";
}

}  // namespace shakedown::analysis::testing
