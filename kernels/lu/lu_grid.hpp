// The host LU's P x Q process grid: given as "PxQ", or the squarest one holding the ranks.
#pragma once

#include <optional>
#include <string>

namespace shakedown::kernels::lu {

struct ProcessGrid {
    int rows = 1;
    int columns = 1;
};

std::optional<ProcessGrid> parse_grid(const std::string& text);  // "2x4"; nullopt when not that form
ProcessGrid squarest_grid(int ranks);                            // P <= Q, P the largest divisor <= sqrt
std::string to_string(const ProcessGrid& grid);                  // "2x4"

}  // namespace shakedown::kernels::lu
