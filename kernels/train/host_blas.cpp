#include "kernels/train/host_blas.hpp"

#include <cblas.h>

namespace shakedown::kernels::train {
namespace {

CBLAS_TRANSPOSE op(bool transpose) { return transpose ? CblasTrans : CblasNoTrans; }

}  // namespace

void host_gemm(bool transpose_a, bool transpose_b, std::int64_t m, std::int64_t n, std::int64_t k, float alpha,
               const float* a, std::int64_t lda, const float* b, std::int64_t ldb, float beta, float* c, std::int64_t ldc) {
    cblas_sgemm(CblasRowMajor, op(transpose_a), op(transpose_b), static_cast<int>(m), static_cast<int>(n),
                static_cast<int>(k), alpha, a, static_cast<int>(lda), b, static_cast<int>(ldb), beta, c,
                static_cast<int>(ldc));
}

void host_gemm(bool transpose_a, bool transpose_b, std::int64_t m, std::int64_t n, std::int64_t k, double alpha,
               const double* a, std::int64_t lda, const double* b, std::int64_t ldb, double beta, double* c,
               std::int64_t ldc) {
    cblas_dgemm(CblasRowMajor, op(transpose_a), op(transpose_b), static_cast<int>(m), static_cast<int>(n),
                static_cast<int>(k), alpha, a, static_cast<int>(lda), b, static_cast<int>(ldb), beta, c,
                static_cast<int>(ldc));
}

bool host_blas_built() { return true; }

}  // namespace shakedown::kernels::train
