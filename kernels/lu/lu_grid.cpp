#include "kernels/lu/lu_grid.hpp"

#include <fmt/format.h>

#include <charconv>

namespace shakedown::kernels::lu {

std::optional<ProcessGrid> parse_grid(const std::string& text) {
    const auto x = text.find('x');
    if (x == std::string::npos || x == 0 || x + 1 == text.size()) return std::nullopt;
    ProcessGrid grid;
    const char* end = text.data() + text.size();
    const auto rows = std::from_chars(text.data(), text.data() + x, grid.rows);
    const auto columns = std::from_chars(text.data() + x + 1, end, grid.columns);
    if (rows.ec != std::errc() || rows.ptr != text.data() + x || columns.ec != std::errc() || columns.ptr != end ||
        grid.rows < 1 || grid.columns < 1)
        return std::nullopt;
    return grid;
}

ProcessGrid squarest_grid(int ranks) {
    ProcessGrid grid{1, ranks};
    for (int rows = 1; rows * rows <= ranks; ++rows)
        if (ranks % rows == 0) grid = {rows, ranks / rows};
    return grid;
}

std::string to_string(const ProcessGrid& grid) { return fmt::format("{}x{}", grid.rows, grid.columns); }

}  // namespace shakedown::kernels::lu
