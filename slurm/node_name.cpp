#include "slurm/node_name.hpp"

#include "core/errors.hpp"

#include <fmt/format.h>

namespace shakedown::slurm {
namespace {

constexpr std::size_t max_name_length = 253;
constexpr std::size_t max_label_length = 63;

bool is_label_character(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-';
}

bool is_valid_label(std::string_view label) {
    if (label.empty() || label.size() > max_label_length) return false;
    if (label.front() == '-' || label.back() == '-') return false;
    for (const char c : label)
        if (!is_label_character(c)) return false;
    return true;
}

}  // namespace

bool is_valid_node_name(std::string_view name) {
    if (name.empty() || name.size() > max_name_length) return false;
    std::size_t start = 0;
    while (true) {
        const auto dot = name.find('.', start);
        if (!is_valid_label(name.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start)))
            return false;
        if (dot == std::string_view::npos) return true;
        start = dot + 1;
    }
}

void require_valid_node_name(std::string_view name, std::string_view what) {
    if (!is_valid_node_name(name))
        throw InputError(fmt::format("invalid {} '{}': expected a host name (letters, digits, '-' and '.')", what,
                                     name));
}

}  // namespace shakedown::slurm
