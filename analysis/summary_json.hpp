// summary.json: the machine-readable verdict (schema in docs/analyzer.md), written atomically
// (temporary file in the same folder, then rename) so a reader never sees half a file and
// nothing else in the run folder is touched.
#pragma once

#include "analysis/judgement.hpp"
#include "analysis/run_data.hpp"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>

namespace shakedown::analysis {

inline constexpr const char* summary_schema_version = "1.0";

struct SummaryContext {
    std::string thresholds_source;  // "default.yaml (built in)" or "... + my.yaml"
    double analyzed_utc = 0.0;
};

nlohmann::json summary_to_json(const LoadedRun& run, const Judgement& judgement, const SummaryContext& context);

// Throws InputError "cannot write PATH: why" when the folder is not writable.
void write_file_atomically(const std::filesystem::path& path, const std::string& content);

}  // namespace shakedown::analysis
