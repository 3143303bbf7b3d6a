#include "analysis/report/report_templates.hpp"

#include "analysis/report/report_templates_data.hpp"
#include "core/errors.hpp"
#include "core/input_file.hpp"
#include "core/input_limits.hpp"
#include "core/json_text.hpp"

#include <fmt/format.h>
#include <mustache.hpp>

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

// Parsed here so that a template that cannot render is refused when it is read.
void check_parses(std::string_view name, const std::string& text) {
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
