// The comparison of two runs rendered three ways: text for the terminal, Markdown for a ticket
// (both list only what changed: worse, better, new, missing, and the counters that rose), and
// JSON for tools (every row, "same" included).
#pragma once

#include "analysis/history/run_comparison.hpp"

#include <nlohmann/json.hpp>

#include <string>

namespace shakedown::analysis {

std::string comparison_text(const RunComparison& comparison);
std::string comparison_markdown(const RunComparison& comparison);
nlohmann::json comparison_json(const RunComparison& comparison);

}  // namespace shakedown::analysis
