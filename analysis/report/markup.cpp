#include "analysis/report/markup.hpp"

#include <fmt/format.h>

namespace shakedown::analysis {
namespace {

constexpr std::string_view replacement = "\xEF\xBF\xBD";  // U+FFFD

// Length of the valid UTF-8 sequence at `text[i]` and its code point, or 0 when invalid.
std::size_t utf8_sequence(std::string_view text, std::size_t i, char32_t& code_point) {
    const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
    const unsigned char lead = byte(i);
    std::size_t length = 0;
    if (lead < 0x80) return code_point = lead, 1;
    if (lead >= 0xC2 && lead <= 0xDF) length = 2, code_point = lead & 0x1F;
    else if (lead >= 0xE0 && lead <= 0xEF) length = 3, code_point = lead & 0x0F;
    else if (lead >= 0xF0 && lead <= 0xF4) length = 4, code_point = lead & 0x07;
    else return 0;
    if (i + length > text.size()) return 0;
    for (std::size_t k = 1; k < length; ++k) {
        if ((byte(i + k) & 0xC0) != 0x80) return 0;
        code_point = (code_point << 6) | (byte(i + k) & 0x3F);
    }
    // Overlong forms, surrogates and code points above U+10FFFF are invalid.
    if ((length == 3 && code_point < 0x800) || (length == 4 && (code_point < 0x10000 || code_point > 0x10FFFF)) ||
        (code_point >= 0xD800 && code_point <= 0xDFFF))
        return 0;
    return length;
}

// C0, DEL and C1.
bool is_control(char32_t code_point) { return code_point < 0x20 || (code_point >= 0x7F && code_point <= 0x9F); }

}  // namespace

std::string escape_control(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    for (std::size_t i = 0; i < text.size();) {
        char32_t code_point = 0;
        std::size_t length = utf8_sequence(text, i, code_point);
        if (length != 0 && !is_control(code_point)) {
            out.append(text.substr(i, length));
        } else {
            if (length == 0) length = 1;  // an invalid byte: shown alone, the next one read afresh
            for (std::size_t k = 0; k < length; ++k) out += fmt::format("\\x{:02x}", static_cast<unsigned char>(text[i + k]));
        }
        i += length;
    }
    return out;
}

std::string escape_markup(std::string_view text) {
    std::string out;
    out.reserve(text.size() + text.size() / 8);
    for (std::size_t i = 0; i < text.size();) {
        char32_t code_point = 0;
        const std::size_t length = utf8_sequence(text, i, code_point);
        if (length == 0) {
            out += replacement;
            ++i;
            continue;
        }
        const bool allowed = code_point == 0x9 || code_point == 0xA || code_point == 0xD ||
                             (code_point >= 0x20 && !is_control(code_point) && code_point != 0xFFFE && code_point != 0xFFFF);
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
