// A blocked right-looking LU with partial pivoting and look-ahead of depth 1 (HPL's schedule),
// written once over the operations it needs, so the host (BLAS/LAPACK, in CI) and the GPU
// (cuBLAS, cuSOLVER, two streams) run the same schedule.
//
// Per block column k (columns [j, j + w), w = min(block, n - j)): once panel k is factored,
// the update lane first brings the NEXT panel's columns up to date (row swaps, the U block
// row, the trailing product) and hands them to the panel lane, which factors panel k + 1 while
// the update lane swaps, solves and updates the rest of the trailing matrix with panel k. So
// the panel is off the critical path as long as a trailing update lasts longer than a panel.
// The pivots end up exactly as LAPACK's getrf leaves them (global rows, 1-based, row i swapped
// with pivots[i] in order), so getrs and the residual code need nothing new.
#pragma once

#include <cstdint>

namespace shakedown::kernels::lu {

// The two queues the schedule issues on (on the GPU two streams; on the host one thread runs
// both in issue order). Work on one lane runs in issue order.
enum class Lane : std::uint8_t { update, panel };

// What the driver asks of the memory the matrix lives on. The matrix is n x n, column-major,
// factored in place; `first`/`width` name block column [first, first + width), whose diagonal
// block starts at row `first`; [column_begin, column_end) are the columns an operation touches.
class LuOperations {
public:
    virtual ~LuOperations() = default;

    // getrf of the panel A[first:n, first:first+width): L and U in place, its rows swapped only
    // within its own columns, pivots[first .. first+width) set as global 1-based rows; a zero
    // pivot at global column c (0-based) is reported as getrf's info c + 1 (the first one kept).
    virtual void factor_panel(Lane lane, int first, int width) = 0;
    // Row i swapped with row pivots[i] for i = first .. first+width-1 in order, in the columns.
    virtual void swap_rows(Lane lane, int first, int width, int column_begin, int column_end) = 0;
    // U block row: A[first:first+width, columns] = L11^-1 A[first:first+width, columns], with
    // L11 the unit lower triangle of the diagonal block.
    virtual void solve_block_row(Lane lane, int first, int width, int column_begin, int column_end) = 0;
    // Trailing product: A[first+width:n, columns] -= A[first+width:n, first:first+width] *
    // A[first:first+width, columns].
    virtual void update_trailing(Lane lane, int first, int width, int column_begin, int column_end) = 0;
    // Later work on `waiter` starts only after all work issued on `signaller` so far finished
    // (an event recorded on one stream and waited for on the other).
    virtual void wait(Lane waiter, Lane signaller) = 0;
};

// Factors the n x n matrix behind `ops` with blocks of `block` columns (block > n: one panel).
// Everything issued has finished on the update lane when its work issued last has (the driver
// ends by joining the panel lane into it). n >= 0, block >= 1.
void factor_lookahead(LuOperations& ops, int n, int block);

}  // namespace shakedown::kernels::lu
