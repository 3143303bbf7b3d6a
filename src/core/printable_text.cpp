#include "core/printable_text.hpp"

#include <fmt/format.h>

#include <cstdint>

namespace shakedown {

Utf8Sequence utf8_sequence_at(std::string_view text, std::size_t i) {
    const auto at = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
    const unsigned char lead = at(i);
    if (lead < 0x80) return {1, lead};
    std::size_t length = 0;
    char32_t code_point = 0;
    if (lead >= 0xC2 && lead <= 0xDF) length = 2, code_point = lead & 0x1F;
    else if (lead >= 0xE0 && lead <= 0xEF) length = 3, code_point = lead & 0x0F;
    else if (lead >= 0xF0 && lead <= 0xF4) length = 4, code_point = lead & 0x07;
    else return {};
    if (i + length > text.size()) return {};
    for (std::size_t k = 1; k < length; ++k) {
        if ((at(i + k) & 0xC0) != 0x80) return {};
        code_point = (code_point << 6) | (at(i + k) & 0x3F);
    }
    if ((length == 3 && code_point < 0x800) || (length == 4 && (code_point < 0x10000 || code_point > 0x10FFFF)) ||
        (code_point >= 0xD800 && code_point <= 0xDFFF))
        return {};
    return {length, code_point};
}

bool is_control(char32_t code_point) { return code_point < 0x20 || (code_point >= 0x7F && code_point <= 0x9F); }

bool is_bidi_control(char32_t code_point) {
    return code_point == 0x061C || code_point == 0x200E || code_point == 0x200F ||
           (code_point >= 0x202A && code_point <= 0x202E) || (code_point >= 0x2066 && code_point <= 0x2069);
}

std::optional<std::size_t> first_unprintable(std::string_view text) {
    for (std::size_t i = 0; i < text.size();) {
        const Utf8Sequence sequence = utf8_sequence_at(text, i);
        if (sequence.length == 0 || is_control(sequence.code_point) || is_bidi_control(sequence.code_point)) return i;
        i += sequence.length;
    }
    return std::nullopt;
}

std::string ascii_lower(std::string_view text) {
    std::string lowered(text);
    for (char& c : lowered)
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    return lowered;
}

std::string escape_control(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    for (std::size_t i = 0; i < text.size();) {
        const Utf8Sequence sequence = utf8_sequence_at(text, i);
        if (sequence.length != 0 && is_bidi_control(sequence.code_point)) {
            out += fmt::format("\\u{:04x}", static_cast<std::uint32_t>(sequence.code_point));
            i += sequence.length;
            continue;
        }
        if (sequence.length != 0 && !is_control(sequence.code_point)) {
            out.append(text.substr(i, sequence.length));
            i += sequence.length;
            continue;
        }
        // An invalid byte is shown alone and the next one read afresh.
        const std::size_t length = sequence.length == 0 ? 1 : sequence.length;
        for (std::size_t k = 0; k < length; ++k) out += fmt::format("\\x{:02x}", static_cast<unsigned char>(text[i + k]));
        i += length;
    }
    return out;
}

std::string escaped_line(std::string_view text) { return escape_control(text) + "\n"; }

}  // namespace shakedown
