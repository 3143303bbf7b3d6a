// `--format markdown`: the report for pasting into a ticket, rendered from the Markdown template
// (report_templates.hpp): the header, the node table, the findings with telemetry, the
// localization, FP64 capability, price, the hardware identity, every measured value (collapsed
// per node), the waived list and the sign-off block.
#pragma once

#include "analysis/report/report_model.hpp"
#include "analysis/report/report_view.hpp"

#include <string>
#include <string_view>

namespace shakedown::analysis {

// Throws InputError when the template cannot render.
std::string markdown_report(const ReportModel& model, const ReportContext& context, std::size_t max_findings = 30);

// Escapes what Markdown tables and inline text would interpret (| ` * _ [ ] < > \ # and newlines,
// which become spaces) and shows every other control character as \xNN (escape_control).
std::string escape_markdown(std::string_view text);

}  // namespace shakedown::analysis
