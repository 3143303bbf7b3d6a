// Row-major GEMM on the host through the system's CBLAS (OpenBLAS where installed), in the two
// precisions the training step uses on the host: float for the measured step, double for the
// reference it is checked against. C = alpha * op(A) * op(B) + beta * C, op(X) = X or X^T;
// m x n result, k the inner dimension, leading dimensions in elements.
#pragma once

#include <cstdint>

namespace shakedown::kernels::train {

void host_gemm(bool transpose_a, bool transpose_b, std::int64_t m, std::int64_t n, std::int64_t k, float alpha,
               const float* a, std::int64_t lda, const float* b, std::int64_t ldb, float beta, float* c, std::int64_t ldc);
void host_gemm(bool transpose_a, bool transpose_b, std::int64_t m, std::int64_t n, std::int64_t k, double alpha,
               const double* a, std::int64_t lda, const double* b, std::int64_t ldb, double beta, double* c,
               std::int64_t ldc);

// Whether this build has the host BLAS (without it, host ranks waive the test with the reason).
bool host_blas_built();

}  // namespace shakedown::kernels::train
