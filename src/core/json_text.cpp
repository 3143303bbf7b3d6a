#include "core/json_text.hpp"

#include "core/errors.hpp"
#include "core/printable_text.hpp"

#include <fmt/format.h>

#include <set>
#include <vector>

namespace shakedown {

std::string json_text(const nlohmann::json& value, int indent) {
    return value.dump(indent, ' ', /*ensure_ascii=*/false, nlohmann::json::error_handler_t::replace);
}

const nlohmann::json& json_member(const nlohmann::json& object, const char* key) {
    static const nlohmann::json absent;  // immutable: what a missing key reads as
    return object.is_object() && object.contains(key) ? object[key] : absent;
}

nlohmann::json parse_json_document(std::string_view text, const std::string& context) {
    using event = nlohmann::json::parse_event_t;
    std::string problem;
    std::vector<std::set<std::string>> keys_of_open_objects;
    // The parser itself keeps its own stack (no recursion); the callback sees every event with its
    // depth, so the first problem is kept and the rest of the document is discarded.
    const nlohmann::json::parser_callback_t check = [&](int depth, event kind, nlohmann::json& parsed) {
        if (!problem.empty()) return false;
        if (depth > max_json_depth) {
            problem = fmt::format("nested deeper than {} levels", max_json_depth);
            return false;
        }
        if (kind == event::object_start) keys_of_open_objects.emplace_back();
        if (kind == event::object_end && !keys_of_open_objects.empty()) keys_of_open_objects.pop_back();
        if (kind == event::key && !keys_of_open_objects.empty() && parsed.is_string()) {
            const std::string& key = parsed.get_ref<const std::string&>();
            if (!keys_of_open_objects.back().insert(key).second) {
                problem = fmt::format("the key \"{}\" is given twice in one object", escape_control(key));
                return false;
            }
        }
        return true;
    };
    nlohmann::json document = nlohmann::json::parse(text, check, /*allow_exceptions=*/false);
    if (!problem.empty()) throw InputError(context + problem);
    if (document.is_discarded()) throw InputError(context + "not valid JSON");
    return document;
}

}  // namespace shakedown
