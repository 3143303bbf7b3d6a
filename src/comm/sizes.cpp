#include "comm/sizes.hpp"

#include "core/errors.hpp"

#include <fmt/format.h>

#include <charconv>
#include <string_view>

namespace shakedown::comm {

std::vector<std::size_t> parse_size_list(const std::string& text, const std::string& parameter) {
    std::vector<std::size_t> sizes;
    std::string_view rest = text;
    while (!rest.empty()) {
        const auto comma = rest.find(',');
        auto item = rest.substr(0, comma);
        rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
        while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
        while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
        std::size_t value = 0;
        const auto [ptr, ec] = std::from_chars(item.data(), item.data() + item.size(), value);
        if (item.empty() || ec != std::errc{} || ptr != item.data() + item.size())
            throw InputError(fmt::format("parameter '{}': '{}' is not a size in bytes (expected e.g. \"8,1024\")",
                                         parameter, item));
        sizes.push_back(value);
    }
    if (sizes.empty()) throw InputError(fmt::format("parameter '{}' names no size", parameter));
    return sizes;
}

std::vector<std::size_t> size_sweep(long long min_bytes, long long max_bytes, long long factor) {
    if (min_bytes < 0 || max_bytes < 0)
        throw InputError(fmt::format("size range {}..{} bytes has a negative bound", min_bytes, max_bytes));
    if (min_bytes > max_bytes)
        throw InputError(fmt::format("size range is upside down: min_bytes {} > max_bytes {}", min_bytes, max_bytes));
    if (factor < 2) throw InputError(fmt::format("size step factor must be at least 2, got {}", factor));
    std::vector<std::size_t> sizes;
    long long size = min_bytes;
    while (size < max_bytes) {
        sizes.push_back(static_cast<std::size_t>(size));
        size = size == 0 ? 1 : size * factor;
    }
    sizes.push_back(static_cast<std::size_t>(max_bytes));
    return sizes;
}

}  // namespace shakedown::comm
