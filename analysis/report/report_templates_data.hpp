// The default report templates: analysis/report/templates/*.mustache, embedded at build time
// (analysis/cmake/embed_text.cmake), so the binary renders its reports without share/.
#pragma once

#include <string_view>

namespace shakedown::analysis {

std::string_view default_html_template();      // templates/report.html.mustache
std::string_view default_markdown_template();  // templates/report.md.mustache

}  // namespace shakedown::analysis
