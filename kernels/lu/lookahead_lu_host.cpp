#include "kernels/lu/lookahead_lu_host.hpp"

#include <cblas.h>

#include <cstddef>

extern "C" {
void dgetrf_(const int* m, const int* n, double* a, const int* lda, int* ipiv, int* info);
void dgetrs_(const char* trans, const int* n, const int* nrhs, const double* a, const int* lda, const int* ipiv,
             double* b, const int* ldb, int* info);
void dlaswp_(const int* n, double* a, const int* lda, const int* k1, const int* k2, const int* ipiv, const int* incx);
}

namespace shakedown::kernels::lu {

double* HostLuOperations::at(int row, int column) const {
    return a_ + static_cast<std::size_t>(column) * static_cast<std::size_t>(lda_) + static_cast<std::size_t>(row);
}

void HostLuOperations::factor_panel(Lane, int first, int width) {
    const int rows = n_ - first;
    int info = 0;
    dgetrf_(&rows, &width, at(first, first), &lda_, pivots_ + first, &info);
    for (int i = first; i < first + width; ++i) pivots_[i] += first;  // panel rows -> global rows
    if (info > 0 && info_ == 0) info_ = info + first;
}

void HostLuOperations::swap_rows(Lane, int first, int width, int column_begin, int column_end) {
    const int columns = column_end - column_begin;
    if (columns <= 0) return;
    const int k1 = first + 1, k2 = first + width, one = 1;  // dlaswp indexes pivots and rows globally
    dlaswp_(&columns, at(0, column_begin), &lda_, &k1, &k2, pivots_, &one);
}

void HostLuOperations::solve_block_row(Lane, int first, int width, int column_begin, int column_end) {
    if (column_end <= column_begin) return;
    cblas_dtrsm(CblasColMajor, CblasLeft, CblasLower, CblasNoTrans, CblasUnit, width, column_end - column_begin, 1.0,
                at(first, first), lda_, at(first, column_begin), lda_);
}

void HostLuOperations::update_trailing(Lane, int first, int width, int column_begin, int column_end) {
    const int rows = n_ - first - width;
    if (rows <= 0 || column_end <= column_begin) return;
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, rows, column_end - column_begin, width, -1.0,
                at(first + width, first), lda_, at(first, column_begin), lda_, 1.0, at(first + width, column_begin), lda_);
}

int lapack_getrf(int n, double* a, int lda, int* pivots) {
    int info = 0;
    dgetrf_(&n, &n, a, &lda, pivots, &info);
    return info;
}

int lapack_getrs(int n, const double* a, int lda, const int* pivots, double* b) {
    int info = 0;
    const int one = 1;
    dgetrs_("N", &n, &one, a, &lda, pivots, b, &n, &info);
    return info;
}

}  // namespace shakedown::kernels::lu
