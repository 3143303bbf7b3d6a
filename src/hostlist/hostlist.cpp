#include "hostlist/hostlist.hpp"
#include "hostlist/node_name.hpp"

#include "core/errors.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <map>
#include <set>
#include <optional>
#include <tuple>

namespace shakedown::slurm {
namespace {

// Numbers longer than this would not fit a uint64_t: they are refused in brackets and
// treated as plain text when compressing.
constexpr std::size_t max_number_digits = 18;

bool is_digit(char c) { return c >= '0' && c <= '9'; }

[[noreturn]] void fail(std::string_view expression, std::string_view problem) {
    throw InputError(fmt::format("invalid hostlist '{}': {}", expression, problem));
}

// One bracket entry: the numbers lo..hi printed with at least `width` digits.
struct NumberRange {
    std::uint64_t lo = 0;
    std::uint64_t hi = 0;
    std::size_t width = 0;
    std::uint64_t count() const { return hi - lo + 1; }
};

// A name is a sequence of parts: literal text, or a bracket group of ranges.
struct NamePart {
    std::string text;                 // literal when ranges is empty
    std::vector<NumberRange> ranges;  // a bracket group
    std::uint64_t count() const {
        if (ranges.empty()) return 1;
        // Saturates just above the limit: it is only compared with max_hostlist_names.
        constexpr std::uint64_t over_limit = std::uint64_t{max_hostlist_names} + 1;
        std::uint64_t total = 0;
        for (const auto& range : ranges) total = std::min(total + std::min(range.count(), over_limit), over_limit);
        return total;
    }
};

struct NamePattern {
    std::vector<NamePart> parts;
};

std::uint64_t parse_number(std::string_view expression, std::string_view digits) {
    if (digits.empty()) fail(expression, "empty number in brackets");
    for (const char c : digits)
        if (!is_digit(c)) fail(expression, fmt::format("'{}' is not a number", digits));
    if (digits.size() > max_number_digits) fail(expression, fmt::format("number '{}' is too long", digits));
    std::uint64_t value = 0;
    std::from_chars(digits.data(), digits.data() + digits.size(), value);
    return value;
}

NumberRange parse_range(std::string_view expression, std::string_view entry) {
    const auto dash = entry.find('-');
    if (dash == std::string_view::npos) {
        const auto value = parse_number(expression, entry);
        return {value, value, entry.size()};
    }
    const auto lo_text = entry.substr(0, dash);
    const auto hi_text = entry.substr(dash + 1);
    const auto lo = parse_number(expression, lo_text);
    const auto hi = parse_number(expression, hi_text);
    if (lo > hi) fail(expression, fmt::format("range '{}' runs backwards", entry));
    if (hi - lo >= max_hostlist_range)
        fail(expression,
             fmt::format("range '{}' has more than {} names (Slurm's limit for one range)", entry, max_hostlist_range));
    // The width is lo's alone, as in Slurm: n[8-010] is n8 n9 n10, n[01-2] is n01 n02.
    return {lo, hi, lo_text.size()};
}

std::vector<NumberRange> parse_bracket(std::string_view expression, std::string_view inside) {
    if (inside.empty()) fail(expression, "empty brackets");
    std::vector<NumberRange> ranges;
    std::size_t start = 0;
    while (true) {
        const auto comma = inside.find(',', start);
        ranges.push_back(parse_range(
            expression, inside.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start)));
        if (comma == std::string_view::npos) return ranges;
        start = comma + 1;
    }
}

NamePattern parse_name(std::string_view expression, std::string_view item) {
    NamePattern pattern;
    std::size_t position = 0;
    while (position < item.size()) {
        const char c = item[position];
        if (c == '[') {
            const auto close = item.find(']', position);
            if (close == std::string_view::npos) fail(expression, "'[' without a matching ']'");
            const auto inside = item.substr(position + 1, close - position - 1);
            if (inside.find('[') != std::string_view::npos) fail(expression, "nested '['");
            pattern.parts.push_back({"", parse_bracket(expression, inside)});
            position = close + 1;
        } else if (c == ']') {
            fail(expression, "']' without a matching '['");
        } else if (is_node_name_character(c)) {
            const auto end = std::min(item.find_first_of("[]", position), item.size());
            const auto text = item.substr(position, end - position);
            for (const char t : text)
                if (!is_node_name_character(t))
                    fail(expression, fmt::format("character '{}' is not allowed in a node name", t));
            // Slurm refuses text after a name's last bracket group (node[1-3]x, node[1-2]-ib):
            // literal text may only come before a bracket.
            if (!pattern.parts.empty() && end == item.size())
                fail(expression, fmt::format("text '{}' after the last ']' (Slurm allows none)", text));
            pattern.parts.push_back({std::string(text), {}});
            position = end;
        } else {
            fail(expression, fmt::format("character '{}' is not allowed in a node name", c));
        }
    }
    return pattern;
}

bool is_separator(char c) { return c == ',' || c == ' ' || c == '\t' || c == '\n'; }

// Splits at the commas and whitespace outside brackets; empty items (`node[1-2],`, `a,,b`,
// two spaces) are dropped, as Slurm drops them.
std::vector<std::string_view> split_items(std::string_view expression) {
    std::vector<std::string_view> items;
    int depth = 0;
    std::size_t start = 0;
    for (std::size_t i = 0; i <= expression.size(); ++i) {
        if (i < expression.size()) {
            if (expression[i] == '[') ++depth;
            if (expression[i] == ']') --depth;
            if (depth != 0 || !is_separator(expression[i])) continue;
        }
        if (i > start) items.push_back(expression.substr(start, i - start));
        start = i + 1;
    }
    return items;
}

std::string format_number(std::uint64_t value, std::size_t width) { return fmt::format("{:0{}}", value, width); }

// The values of one bracket group, formatted, in the order written.
std::vector<std::string> group_values(const NamePart& part) {
    std::vector<std::string> values;
    for (const auto& range : part.ranges)
        for (auto value = range.lo;; ++value) {
            values.push_back(format_number(value, range.width));
            if (value == range.hi) break;
        }
    return values;
}

// The names of one pattern in Slurm 22.05's order (`scontrol show hostnames`): the last group
// varies fastest; the others, from the slowest, are the second-to-last back to the first.
// With two groups that is the plain product (a[1-2]b[3-4]: a1b3 a1b4 a2b3 a2b4); with three,
// n[1-2]x[3-4]y[5-6] gives n1x3y5 n1x3y6 n2x3y5 n2x3y6 n1x4y5 ...
void expand_pattern(const NamePattern& pattern, std::vector<std::string>& names) {
    std::vector<std::size_t> groups;  // indexes into parts
    std::vector<std::vector<std::string>> values;
    for (std::size_t i = 0; i < pattern.parts.size(); ++i)
        if (!pattern.parts[i].ranges.empty()) {
            groups.push_back(i);
            values.push_back(group_values(pattern.parts[i]));
        }
    // Slowest to fastest, as indexes into groups.
    std::vector<std::size_t> significance;
    if (!groups.empty()) {
        for (auto g = groups.size() - 1; g-- > 0;) significance.push_back(g);
        significance.push_back(groups.size() - 1);
    }
    std::vector<std::size_t> digit(groups.size(), 0);
    while (true) {
        std::string name;
        std::size_t group = 0;
        for (const auto& part : pattern.parts) {
            if (part.ranges.empty()) {
                name += part.text;
            } else {
                name += values[group][digit[group]];
                ++group;
            }
        }
        names.push_back(std::move(name));
        // Advance the odometer from its fastest digit.
        auto position = significance.size();
        while (position > 0) {
            const auto g = significance[position - 1];
            if (++digit[g] < values[g].size()) break;
            digit[g] = 0;
            --position;
        }
        if (position == 0) return;
    }
}

// --- compression ---------------------------------------------------------------------

// A name seen as prefix + number + suffix, split at its last run of digits.
struct NumberedName {
    std::string prefix;
    std::string digits;
    std::string suffix;
};

std::optional<NumberedName> split_last_number(const std::string& name) {
    const auto last_digit = name.find_last_of("0123456789");
    if (last_digit == std::string::npos) return std::nullopt;
    const auto first_digit = name.find_last_not_of("0123456789", last_digit);
    const auto begin = first_digit == std::string::npos ? 0 : first_digit + 1;
    const auto digits = name.substr(begin, last_digit + 1 - begin);
    if (digits.size() > max_number_digits) return std::nullopt;
    return NumberedName{name.substr(0, begin), digits, name.substr(last_digit + 1)};
}

bool is_padded(const std::string& digits) { return digits.size() > 1 && digits.front() == '0'; }

// Names whose numbers can share one bracket group: same text around the number and the
// same padded width (0: no padding).
using GroupKey = std::tuple<std::string, std::string, std::size_t>;

std::string format_group(const GroupKey& key, std::vector<std::uint64_t> numbers) {
    const auto& [prefix, suffix, width] = key;
    std::sort(numbers.begin(), numbers.end());
    numbers.erase(std::unique(numbers.begin(), numbers.end()), numbers.end());
    if (numbers.size() == 1) return prefix + format_number(numbers.front(), width) + suffix;
    std::string ranges;
    for (std::size_t i = 0; i < numbers.size();) {
        std::size_t j = i;
        while (j + 1 < numbers.size() && numbers[j + 1] == numbers[j] + 1) ++j;
        if (!ranges.empty()) ranges += ',';
        ranges += format_number(numbers[i], width);
        if (j > i) ranges += '-' + format_number(numbers[j], width);
        i = j + 1;
    }
    return fmt::format("{}[{}]{}", prefix, ranges, suffix);
}

}  // namespace

std::vector<std::string> expand_hostlist(std::string_view expression) {
    std::size_t names_left = max_hostlist_names;
    return expand_hostlist(expression, names_left);
}

std::vector<std::string> expand_hostlist(std::string_view expression, std::size_t& names_left) {
    const auto first = expression.find_first_not_of(" \t\n");
    if (first == std::string_view::npos) throw InputError("invalid hostlist '': it is empty");
    const auto trimmed = expression.substr(first, expression.find_last_not_of(" \t\n") - first + 1);
    const auto items = split_items(trimmed);
    // Slurm expands "," to nothing; a job on no nodes is never what was meant.
    if (items.empty()) fail(trimmed, "it names no node");

    std::vector<NamePattern> patterns;
    std::uint64_t total = 0;
    for (const auto item : items) {
        auto pattern = parse_name(trimmed, item);
        std::uint64_t count = 1;
        bool too_many = false;
        for (const auto& part : pattern.parts) {
            // Both factors are at most max_hostlist_names + 1 here: the product cannot overflow.
            count *= part.count();
            if (count > max_hostlist_names) {
                too_many = true;
                break;
            }
        }
        total += count;
        if (too_many || total > max_hostlist_names)
            fail(trimmed, fmt::format("expands to more than {} names", max_hostlist_names));
        patterns.push_back(std::move(pattern));
    }

    if (total > names_left)
        fail(trimmed, fmt::format("expands to {} names, more than the {} left of the {} one file may name", total,
                                  names_left, max_hostlist_names));
    names_left -= static_cast<std::size_t>(total);
    std::vector<std::string> names;
    names.reserve(static_cast<std::size_t>(total));
    for (const auto& pattern : patterns) expand_pattern(pattern, names);
    return names;
}

std::string compress_hostlist(const std::vector<std::string>& names) {
    // Padded widths seen per prefix/suffix: an unpadded number of that many digits (the 10
    // of node[08-10]) joins the padded group instead of starting a group of its own.
    // A set per prefix: a list of every padded name's width was searched once per unpadded name,
    // the product of the two (seconds for a million names).
    std::map<std::pair<std::string, std::string>, std::set<std::size_t>> padded_widths;
    for (const auto& name : names)
        if (const auto split = split_last_number(name); split && split->suffix.empty() && is_padded(split->digits))
            padded_widths[{split->prefix, split->suffix}].insert(split->digits.size());

    std::vector<GroupKey> order;  // first appearance, for a stable result
    std::map<GroupKey, std::vector<std::uint64_t>> groups;
    std::vector<std::string> plain_names;  // names without a number, kept as written
    std::map<std::string, std::size_t> plain_position;
    std::vector<std::pair<bool, std::size_t>> sequence;  // (is group, index) in first-appearance order

    for (const auto& name : names) {
        const auto split = split_last_number(name);
        // Slurm allows no text after a bracket: node1-ib stays as it is.
        if (!split || !split->suffix.empty()) {
            if (plain_position.emplace(name, plain_names.size()).second) {
                sequence.emplace_back(false, plain_names.size());
                plain_names.push_back(name);
            }
            continue;
        }
        std::size_t width = 0;
        if (is_padded(split->digits)) {
            width = split->digits.size();
        } else if (const auto found = padded_widths.find({split->prefix, split->suffix}); found != padded_widths.end()) {
            if (found->second.contains(split->digits.size())) width = split->digits.size();
        }
        const GroupKey key{split->prefix, split->suffix, width};
        auto [entry, inserted] = groups.try_emplace(key);
        if (inserted) {
            sequence.emplace_back(true, order.size());
            order.push_back(key);
        }
        std::uint64_t value = 0;
        std::from_chars(split->digits.data(), split->digits.data() + split->digits.size(), value);
        entry->second.push_back(value);
    }

    std::string result;
    for (const auto& [is_group, index] : sequence) {
        if (!result.empty()) result += ',';
        result += is_group ? format_group(order[index], groups[order[index]]) : plain_names[index];
    }
    return result;
}

}  // namespace shakedown::slurm
