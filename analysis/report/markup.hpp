// Text for XML and HTML: escaping that is safe for element content and quoted attributes, and a
// small writer that nests elements correctly (junit.xml; the HTML report uses the escaping).
// Input text comes from traces (test reasons, node names) and is hostile until escaped: markup
// characters are escaped, and what XML 1.0 cannot carry at all (control characters, invalid
// UTF-8) is replaced by U+FFFD, so the output always parses. The terminal and Markdown reports
// escape the same text with escape_control (core/printable_text.hpp).
#pragma once

#include "core/printable_text.hpp"

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace shakedown::analysis {

// & < > " ' escaped; carriage return as &#13; (kept, but never a raw CR that would move a
// terminal's cursor when the file is shown there); invalid UTF-8, C0 controls other than
// tab/newline/CR, DEL, C1 controls (U+0080..U+009F, discouraged by XML 1.0 and read by terminals
// as escape sequences) and U+FFFE/U+FFFF become U+FFFD.
std::string escape_markup(std::string_view text);

// A CSS string literal, quotes included, for text that goes into a style sheet (a printed page's
// footer): backslash and double quote escaped, and '<', '>', '&' and every control character as
// CSS hex escapes, so the text can neither end the string nor the <style> element. Invalid UTF-8
// is made printable first (escape_control).
std::string css_string_literal(std::string_view text);

using Attributes = std::vector<std::pair<std::string, std::string>>;

class XmlWriter {
public:
    XmlWriter();  // starts with the XML declaration

    // <name a="..."> ; names are the caller's constants, values are escaped.
    XmlWriter& open(std::string_view name, const Attributes& attributes = {});
    // <name a="...">text</name>, or <name a="..."/> without text.
    XmlWriter& element(std::string_view name, const Attributes& attributes = {}, std::string_view text = {});
    XmlWriter& close();  // the innermost open element

    // Closes what is still open and returns the document.
    std::string finish();

private:
    void indent();
    std::string out_;
    std::vector<std::string> open_;
};

}  // namespace shakedown::analysis
