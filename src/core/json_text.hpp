// JSON as text, for every file and terminal line shakedown writes from a JSON value. Strings in
// those values come from outside (host names, folder names, run.json, traces): a byte that is not
// UTF-8 is written as U+FFFD rather than ending the program, since JSON text must be UTF-8 and the
// library's default is to throw while writing.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>

namespace shakedown {

// The value as JSON text: compact with indent < 0, else pretty-printed with that many spaces.
std::string json_text(const nlohmann::json& value, int indent = -1);

// object[key] where the object has it, else a null value: what an absent key, or a section that is
// not an object, reads as (for documents whose every part is optional, such as an inventory).
const nlohmann::json& json_member(const nlohmann::json& object, const char* key);

// The deepest nesting a JSON document shakedown reads may have. run.json is 4 levels deep, a
// profile or thresholds file fewer than 10; writing a value nests one call per level, so a
// document of 70,000 nested lists would overflow the stack when it is written again.
inline constexpr int max_json_depth = 64;

// A JSON document read from a file: nlohmann::json's parse with what it does not check itself.
// Throws InputError (with `context` before the reason) for text that is not JSON, nesting deeper
// than max_json_depth, or a key given twice in one object (the library keeps the last one, so
// `"status": "aborted"` followed by `"status": "complete"` would read as complete).
nlohmann::json parse_json_document(std::string_view text, const std::string& context);

}  // namespace shakedown
