// The mustache templates report.html and the Markdown report are rendered from (kainjow::mustache).
// The defaults are embedded in the binary and installed to share/shakedown/templates; a site
// brands its reports with `--template-dir DIR` holding its own copies of both files. A template
// is parsed when it is read, so a broken one is bad input before anything is written.
//
// The renderers hand a template a JSON view (report_view.hpp): objects are mustache contexts,
// arrays are lists, false/null/[] are false. Every {{value}} is escaped for the output format
// (escape_markup for HTML, escape_markdown for Markdown); only the SVG the report draws itself is
// given to {{{triple}}} tags.
#pragma once

#include <nlohmann/json.hpp>

#include <filesystem>
#include <functional>
#include <string>
#include <string_view>

namespace shakedown::analysis {

// The file names inside a template folder (and share/shakedown/templates): declared once.
inline constexpr const char* html_template_file = "report.html.mustache";
inline constexpr const char* markdown_template_file = "report.md.mustache";

struct ReportTemplates {
    std::string html;
    std::string markdown;
    std::string origin;  // "built-in" or the folder they were read from

    static ReportTemplates built_in();
    // Both files from `dir`. Throws InputError "--template-dir DIR: report.html.mustache: no such
    // file" (or unreadable, or "line 3: unclosed section") for what is missing or does not parse.
    static ReportTemplates from_dir(const std::filesystem::path& dir);
};

using TemplateEscape = std::function<std::string(const std::string&)>;

// The template filled from `view`, every {{value}} passed through `escape`. `name` names the
// template in the InputError a template that does not parse throws.
std::string render_template(std::string_view name, const std::string& text, const nlohmann::json& view,
                            const TemplateEscape& escape);

}  // namespace shakedown::analysis
