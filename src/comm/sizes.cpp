#include "comm/sizes.hpp"

#include "core/errors.hpp"

#include <fmt/format.h>


namespace shakedown::comm {

std::vector<std::size_t> byte_sizes(const std::vector<std::int64_t>& sizes) {
    return {sizes.begin(), sizes.end()};
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
