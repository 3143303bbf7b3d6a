// Validation of C = A * B by checksums (Huang and Abraham's algorithm-based fault
// tolerance): the column sums of C must equal (e^T A) B and its row sums A (B e). Both
// checks cost O(n^2) on the host, see every element of C, and a single wrong element
// shows up in exactly one row and one column sum, which names it.
//
// Tolerance: a GEMM entry computed in FP64 by any summation order is within
// n * eps * sum_k |A(i,k)| |B(k,j)| of the exact value (the standard bound gamma_n); a sum of
// entries is within the sum of their bounds. Check sums are accumulated with compensated
// (Neumaier) summation, so their own rounding is negligible beside that bound; we admit
// twice the bound.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace shakedown::gemm {

struct GemmElementError {
    std::size_t row = 0;
    std::size_t col = 0;
    double value = 0.0;     // what C holds
    double expected = 0.0;  // what the checksums say it should hold (exact for one bad element)
};

struct GemmCheck {
    std::size_t bad_rows = 0;
    std::size_t bad_cols = 0;
    std::vector<GemmElementError> located;  // row x column intersections, up to the cap
    double worst_column_error = 0.0;        // |sum error| / tolerance of the worst column
    bool ok() const { return bad_rows == 0 && bad_cols == 0; }
};

inline constexpr std::size_t gemm_error_print_cap = 5;

// A (m x k), B (k x n), C (m x n), all column-major.
GemmCheck check_gemm_by_checksums(const std::vector<double>& a, const std::vector<double>& b,
                                  const std::vector<double>& c, std::size_t m, std::size_t n, std::size_t k,
                                  std::size_t cap = gemm_error_print_cap);

// "C(12, 40) = -3.1 (expected 1.05); 1 row(s) and 1 column(s) off their checksums"
std::string describe_failure(const GemmCheck& check);

}  // namespace shakedown::gemm
