// UTF-8 reading and terminal-safe text, shared by every family that reads text from a file or a
// command line and prints it (the YAML reader refuses what is not printable; the analyzer's
// reports and the driver's error lines escape it).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace shakedown {

struct Utf8Sequence {
    std::size_t length = 0;  // 0: the bytes at the position are not well-formed UTF-8
    char32_t code_point = 0;
};

// The well-formed UTF-8 sequence at text[i] (RFC 3629: no overlong forms, no surrogates, nothing
// above U+10FFFF).
Utf8Sequence utf8_sequence_at(std::string_view text, std::size_t i);

// C0, DEL and C1 (U+0080..U+009F, which terminals read as escape sequences).
bool is_control(char32_t code_point);

// The bidirectional formatting characters (U+061C, U+200E/F, U+202A..U+202E, U+2066..U+2069):
// invisible, they reorder the text around them, so "FAIL" can be made to read as "LIAF" or a
// reason's words shown in another order than they are stored (the "Trojan Source" characters).
bool is_bidi_control(char32_t code_point);

// The position of the first byte that is not printable text: invalid UTF-8, a control character
// or a bidirectional formatting character; none for text that is all printable.
std::optional<std::size_t> first_unprintable(std::string_view text);

// The text with A-Z as a-z and every other byte as it is: for names compared without case (a
// BLAS core, a topology key, a PCI bus id, a GPU model), never for text shown to a user.
std::string ascii_lower(std::string_view text);

// Text for a terminal (and, below the Markdown escaping, for Markdown): every control character
// (C0 including tab, newline and carriage return, DEL, the C1 controls) and every byte of invalid
// UTF-8 is shown as \xNN, one per byte, so text read from a file can neither move the cursor,
// recolour or erase a line nor start a new one ("node\x1b[2K\rVerdict: PASS" prints as such).
// A bidirectional formatting character is shown as \uNNNN. Everything else, other UTF-8
// included, is kept.
std::string escape_control(std::string_view text);
// One line of a report from outside text: escape_control(text) and a newline.
std::string escaped_line(std::string_view text);

}  // namespace shakedown
