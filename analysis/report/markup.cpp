#include "analysis/report/markup.hpp"

#include <fmt/format.h>

namespace shakedown::analysis {
namespace {

constexpr std::string_view replacement = "\xEF\xBF\xBD";  // U+FFFD

}  // namespace

std::string css_string_literal(std::string_view text) {
    std::string literal = "\"";
    for (const char c : escape_control(text)) {
        const auto byte = static_cast<unsigned char>(c);
        if (c == '\\' || c == '"') {
            literal += '\\';
            literal += c;
        } else if (c == '<' || c == '>' || c == '&' || byte < 0x20 || byte == 0x7f) {
            literal += fmt::format("\\{:x} ", byte);  // the space ends the hex escape
        } else {
            literal += c;
        }
    }
    return literal + "\"";
}

std::string escape_markup(std::string_view text) {
    std::string out;
    out.reserve(text.size() + text.size() / 8);
    for (std::size_t i = 0; i < text.size();) {
        const auto [length, code_point] = utf8_sequence_at(text, i);
        if (length == 0) {
            out += replacement;
            ++i;
            continue;
        }
        const bool allowed = code_point == 0x9 || code_point == 0xA || code_point == 0xD ||
                             (code_point >= 0x20 && !is_control(code_point) && !is_bidi_control(code_point) && code_point != 0xFFFE &&
                              code_point != 0xFFFF);
        if (!allowed) out += replacement;
        else if (code_point == '\r') out += "&#13;";
        else if (code_point == '&') out += "&amp;";
        else if (code_point == '<') out += "&lt;";
        else if (code_point == '>') out += "&gt;";
        else if (code_point == '"') out += "&quot;";
        else if (code_point == '\'') out += "&#39;";
        else out.append(text.substr(i, length));
        i += length;
    }
    return out;
}

XmlWriter::XmlWriter() : out_("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n") {}

void XmlWriter::indent() { out_.append(open_.size() * 2, ' '); }

XmlWriter& XmlWriter::open(std::string_view name, const Attributes& attributes) {
    indent();
    out_ += '<';
    out_ += name;
    for (const auto& [key, value] : attributes) out_ += ' ' + key + "=\"" + escape_markup(value) + '"';
    out_ += ">\n";
    open_.emplace_back(name);
    return *this;
}

XmlWriter& XmlWriter::element(std::string_view name, const Attributes& attributes, std::string_view text) {
    indent();
    out_ += '<';
    out_ += name;
    for (const auto& [key, value] : attributes) out_ += ' ' + key + "=\"" + escape_markup(value) + '"';
    if (text.empty()) {
        out_ += "/>\n";
    } else {
        out_ += '>' + escape_markup(text) + "</";
        out_ += name;
        out_ += ">\n";
    }
    return *this;
}

XmlWriter& XmlWriter::close() {
    if (open_.empty()) return *this;
    const std::string name = std::move(open_.back());
    open_.pop_back();
    indent();
    out_ += "</" + name + ">\n";
    return *this;
}

std::string XmlWriter::finish() {
    while (!open_.empty()) close();
    return std::move(out_);
}

}  // namespace shakedown::analysis
