#include "hostlist/node_name.hpp"

#include "core/errors.hpp"

#include <fmt/format.h>

namespace shakedown::slurm {
namespace {

constexpr std::size_t max_name_length = 253;

}  // namespace

bool is_node_name_character(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.';
}

bool is_valid_node_name(std::string_view name) {
    if (name.empty() || name.size() > max_name_length) return false;
    if (name.front() == '-' || name.front() == '.') return false;  // never read as an option or a relative path
    for (const char c : name)
        if (!is_node_name_character(c)) return false;
    return true;
}

void require_valid_node_name(std::string_view name, std::string_view what) {
    if (!is_valid_node_name(name))
        throw InputError(fmt::format("invalid {} '{}': expected a Slurm node name (letters, digits, '-', '_' and '.')", what,
                                     name));
}

}  // namespace shakedown::slurm
