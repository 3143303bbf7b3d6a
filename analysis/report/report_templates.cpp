#include "analysis/report/report_templates.hpp"

#include "analysis/report/report_templates_data.hpp"
#include "core/errors.hpp"
#include "core/input_file.hpp"
#include "core/input_limits.hpp"
#include "core/json_text.hpp"

#include <fmt/format.h>
#include <mustache.hpp>

#include <algorithm>

namespace shakedown::analysis {
namespace {

namespace mustache = kainjow::mustache;

// A view is our own JSON: numbers are shown as JSON writes them (the views carry formatted
// strings where the digits matter), null is false, as an absent key is.
//
// Each value is converted once and moved into its parent: kainjow's data::set and
// data::push_back take a const reference and copy the whole subtree, so building the tree with
// them copied every leaf once per level above it (report.html's measured values are 6 levels
// deep: 1.2 s of CPU at 16,384 ranks, the largest part of rendering report.html).
mustache::data to_data(const nlohmann::json& value) {
    switch (value.type()) {
        case nlohmann::json::value_t::object: {
            mustache::data object(mustache::data::type::object);
            // JSON keys are unique, so assigning through operator[] is what set() does, without the copy.
            for (const auto& [key, item] : value.items()) object[key] = to_data(item);
            return object;
        }
        case nlohmann::json::value_t::array: {
            mustache::data list(mustache::data::type::list);
            // list_value() is the list this data owns (not a const object), only handed out as
            // const: appended to in place, as push_back would but for the copy. Reserved first:
            // data's move is not noexcept, so a vector that grows copies what it holds.
            auto& items = const_cast<mustache::list&>(list.list_value());
            items.reserve(value.size());
            for (const auto& item : value) items.push_back(to_data(item));
            return list;
        }
        case nlohmann::json::value_t::string: return mustache::data(value.get_ref<const std::string&>());
        case nlohmann::json::value_t::boolean: return mustache::data(value.get<bool>());
        case nlohmann::json::value_t::null: return mustache::data(false);
        default: return mustache::data(json_text(value));
    }
}

std::string_view trimmed(std::string_view text) {
    const auto first = text.find_first_not_of(" \t\r\n");
    if (first == std::string_view::npos) return {};
    return text.substr(first, text.find_last_not_of(" \t\r\n") - first + 1);
}

// The deepest nesting of sections ({{#x}} and {{^x}} up to their {{/x}}), following set-delimiter
// tags ({{=<% %>=}}) so that other delimiters cannot hide a nesting. Only tags are told apart here;
// whether the text is a valid template is the library's to say, after this bound.
std::size_t deepest_section(std::string_view text) {
    std::string open = "{{";
    std::string close = "}}";
    std::size_t depth = 0;
    std::size_t deepest = 0;
    std::size_t at = 0;
    while ((at = text.find(open, at)) != std::string_view::npos) {
        const std::size_t start = at + open.size();
        const std::size_t end = text.find(close, start);
        if (end == std::string_view::npos) break;  // an unclosed tag: the library refuses it
        const std::string_view tag = trimmed(text.substr(start, end - start));
        at = end + close.size();
        if (tag.empty()) continue;
        if (tag.front() == '#' || tag.front() == '^') {
            deepest = std::max(deepest, ++depth);
        } else if (tag.front() == '/') {
            depth = depth > 0 ? depth - 1 : 0;
        } else if (tag.size() >= 2 && tag.front() == '=' && tag.back() == '=') {
            const std::string_view pair = trimmed(tag.substr(1, tag.size() - 2));
            const auto space = pair.find_first_of(" \t");
            if (space == std::string_view::npos) break;  // malformed: the library refuses it
            open = std::string(pair.substr(0, space));
            close = std::string(trimmed(pair.substr(space)));
            if (open.empty() || close.empty()) break;
        }
    }
    return deepest;
}

// Parsed here so that a template that cannot render is refused when it is read.
void check_parses(std::string_view name, const std::string& text) {
    if (const std::size_t depth = deepest_section(text); depth > input_limits::max_template_section_depth)
        throw InputError(fmt::format("{}: sections nested {} deep; at most {}", name, depth,
                                     input_limits::max_template_section_depth));
    const mustache::mustache parsed(text);
    if (!parsed.is_valid()) throw InputError(fmt::format("{}: {}", name, parsed.error_message()));
}

std::string read_template(const std::filesystem::path& dir, const char* file) {
    const std::filesystem::path path = dir / file;
    std::string text = read_input_file(path, input_limits::max_text_file_bytes,
                                       fmt::format("--template-dir {}: {}: ", dir.string(), file));
    check_parses(fmt::format("--template-dir {}: {}", dir.string(), file), text);
    return text;
}

}  // namespace

ReportTemplates ReportTemplates::built_in() {
    return {std::string(default_html_template()), std::string(default_markdown_template()), "built-in"};
}

ReportTemplates ReportTemplates::from_dir(const std::filesystem::path& dir) {
    std::error_code error;
    if (!std::filesystem::is_directory(dir, error))
        throw InputError(fmt::format("--template-dir {}: not a folder (it must hold {} and {})", dir.string(),
                                     html_template_file, markdown_template_file));
    ReportTemplates templates;
    templates.html = read_template(dir, html_template_file);
    templates.markdown = read_template(dir, markdown_template_file);
    templates.origin = dir.string();
    return templates;
}

std::string render_template(std::string_view name, const std::string& text, const nlohmann::json& view,
                            const TemplateEscape& escape) {
    mustache::mustache parsed(text);
    if (!parsed.is_valid()) throw InputError(fmt::format("{}: {}", name, parsed.error_message()));
    parsed.set_custom_escape(escape);
    std::string rendered = parsed.render(to_data(view));
    if (!parsed.is_valid()) throw InputError(fmt::format("{}: {}", name, parsed.error_message()));
    return rendered;
}

}  // namespace shakedown::analysis
