// summary.json: the machine-readable verdict (schema in docs/analyzer.md), written atomically
// (temporary file in the same folder, then rename) so a reader never sees half a file and
// nothing else in the run folder is touched.
#pragma once

#include "analysis/report/report_model.hpp"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <map>
#include <string>

namespace shakedown::analysis {

// Each version only adds fields (docs/analyzer.md lists them): readers of 1.0 keep working.
inline constexpr const char* summary_schema_version = "1.11";

struct SummaryContext {
    std::string thresholds_source;  // "default.yaml (built in)" or "... + my.yaml"
    double analyzed_utc = 0.0;
    std::map<std::string, std::string> outputs;  // "junit": path, "html": path, "drain": path
};

nlohmann::json summary_to_json(const ReportModel& model, const SummaryContext& context);

// The parts other outputs reuse.
nlohmann::json finding_to_json(const Finding& finding);
nlohmann::json localization_to_json(const LinkLocalization& links);
nlohmann::json price_to_json(const PriceReport& price);

}  // namespace shakedown::analysis
