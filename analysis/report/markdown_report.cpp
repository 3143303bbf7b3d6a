#include "analysis/report/markdown_report.hpp"

#include "analysis/report/markup.hpp"
#include "analysis/report/report_templates.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace shakedown::analysis {

std::string escape_markdown(std::string_view text) {
    std::string flat(text);
    std::replace_if(flat.begin(), flat.end(), [](char c) { return c == '\n' || c == '\r'; }, ' ');
    std::string out;
    for (char c : escape_control(flat)) {
        if (std::string_view("|`*_[]<>\\#").find(c) != std::string_view::npos) out += std::string("\\") + c;
        else out += c;
    }
    return out;
}

std::string markdown_report(const ReportModel& model, const ReportContext& context, std::size_t max_findings) {
    nlohmann::json view = report_view(model, context.header, context.identity);
    // Hardware FAILs, then the WARNs, each in one line with who and why (HTML has a table instead).
    std::vector<const Finding*> findings = model.failures;
    findings.insert(findings.end(), model.warnings.begin(), model.warnings.end());
    nlohmann::json items = nlohmann::json::array();
    for (std::size_t i = 0; i < findings.size() && i < max_findings; ++i)
        items.push_back({{"verdict", upper(to_string(findings[i]->level))},
                         {"text", describe_finding(*findings[i])},
                         {"telemetry", findings[i]->explanation.empty() ? nlohmann::json(false)
                                                                        : nlohmann::json(findings[i]->explanation)}});
    view["findings_list"] = {{"count", std::to_string(findings.size())},
                             {"items", items},
                             {"none", findings.empty()},
                             {"more", findings.size() > max_findings
                                          ? nlohmann::json(fmt::format("... and {} more in summary.json",
                                                                       findings.size() - max_findings))
                                          : nlohmann::json(false)}};
    return render_template(markdown_template_file, context.templates->markdown, view,
                           [](const std::string& text) { return escape_markdown(text); });
}

}  // namespace shakedown::analysis
