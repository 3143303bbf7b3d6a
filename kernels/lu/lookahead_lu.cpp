#include "kernels/lu/lookahead_lu.hpp"

#include <algorithm>
#include <stdexcept>

namespace shakedown::kernels::lu {

void factor_lookahead(LuOperations& ops, int n, int block) {
    if (n < 0 || block < 1) throw std::invalid_argument("factor_lookahead: n must be >= 0 and block >= 1");
    if (n == 0) return;
    ops.factor_panel(Lane::panel, 0, std::min(block, n));
    for (int first = 0; first < n; first += block) {
        const int width = std::min(block, n - first);
        const int trailing = first + width;  // the first column (and row) after panel k
        ops.wait(Lane::update, Lane::panel);  // panel k factored: its L, U11 and pivots are final
        if (trailing < n) {
            // Look-ahead: the next panel's columns first, then they go to the panel lane.
            const int next_width = std::min(block, n - trailing);
            const int next_end = trailing + next_width;
            ops.swap_rows(Lane::update, first, width, trailing, next_end);
            ops.solve_block_row(Lane::update, first, width, trailing, next_end);
            ops.update_trailing(Lane::update, first, width, trailing, next_end);
            ops.wait(Lane::panel, Lane::update);
            ops.factor_panel(Lane::panel, trailing, next_width);
            // Meanwhile the rest of the trailing matrix with panel k (columns disjoint from the
            // panel being factored).
            if (next_end < n) {
                ops.swap_rows(Lane::update, first, width, next_end, n);
                ops.solve_block_row(Lane::update, first, width, next_end, n);
                ops.update_trailing(Lane::update, first, width, next_end, n);
            }
        }
        // Panel k's swaps in the columns already factored (their L), as getrf leaves them. Issued
        // after the trailing work so it does not delay the next panel; the panel lane never
        // touches columns left of its panel, so this needs no event.
        if (first > 0) ops.swap_rows(Lane::update, first, width, 0, first);
    }
    ops.wait(Lane::update, Lane::panel);  // nothing left running on the panel lane
}

}  // namespace shakedown::kernels::lu
