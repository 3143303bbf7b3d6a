// `--format markdown`: the verdict, the node table, the top findings with telemetry, the
// localization and the price, as Markdown for pasting into a ticket.
#pragma once

#include "analysis/report/report_model.hpp"

#include <string>
#include <string_view>

namespace shakedown::analysis {

std::string markdown_report(const ReportModel& model, std::size_t max_findings = 30);

// Escapes what Markdown tables and inline text would interpret (| ` * _ [ ] < > \ # and newlines,
// which become spaces) and shows every other control character as \xNN (escape_control).
std::string escape_markdown(std::string_view text);

}  // namespace shakedown::analysis
