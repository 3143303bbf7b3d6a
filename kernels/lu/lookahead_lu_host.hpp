// The look-ahead LU's operations on host memory through the reference interfaces (CBLAS dtrsm and
// dgemm, LAPACK dgetrf and dlaswp; OpenBLAS behind them on Debian): both lanes run on the calling
// thread in issue order. CI proves the schedule with it (tests/kernels/lookahead_lu_test.cpp);
// the GPU runs the same schedule through lu_cuda_lookahead.cu.
#pragma once

#include "kernels/lu/lookahead_lu.hpp"

namespace shakedown::kernels::lu {

class HostLuOperations final : public LuOperations {
public:
    // `a`: n x n column-major with leading dimension lda >= n; `pivots`: n entries. Both borrowed.
    HostLuOperations(double* a, int n, int lda, int* pivots) : a_(a), n_(n), lda_(lda), pivots_(pivots) {}

    void factor_panel(Lane lane, int first, int width) override;
    void swap_rows(Lane lane, int first, int width, int column_begin, int column_end) override;
    void solve_block_row(Lane lane, int first, int width, int column_begin, int column_end) override;
    void update_trailing(Lane lane, int first, int width, int column_begin, int column_end) override;
    void wait(Lane, Lane) override {}  // one thread: issue order is completion order

    int info() const { return info_; }  // getrf's: 0, or the first zero pivot's column + 1

private:
    double* at(int row, int column) const;

    double* a_;
    int n_;
    int lda_;
    int* pivots_;
    int info_ = 0;
};

// LAPACK's dgetrf and dgetrs on host memory (the reference the schedule is checked against, and
// the solve after it). Return LAPACK's info.
int lapack_getrf(int n, double* a, int lda, int* pivots);
int lapack_getrs(int n, const double* a, int lda, const int* pivots, double* b);

}  // namespace shakedown::kernels::lu
