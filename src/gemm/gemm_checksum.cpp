#include "gemm/gemm_checksum.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>

namespace shakedown::gemm {
namespace {

// Neumaier's compensated sum: the running error term keeps the sum exact to ~1 ulp.
class CompensatedSum {
public:
    void add(double x) {
        const double t = sum_ + x;
        compensation_ += std::abs(sum_) >= std::abs(x) ? (sum_ - t) + x : (x - t) + sum_;
        sum_ = t;
    }
    double value() const { return sum_ + compensation_; }

private:
    double sum_ = 0.0;
    double compensation_ = 0.0;
};

struct Checksums {
    std::vector<double> actual;
    std::vector<double> expected;
    std::vector<double> tolerance;
};

}  // namespace

GemmCheck check_gemm_by_checksums(const std::vector<double>& a, const std::vector<double>& b,
                                  const std::vector<double>& c, std::size_t m, std::size_t n, std::size_t k,
                                  std::size_t cap) {
    const double gamma = 2.0 * static_cast<double>(k) * std::numeric_limits<double>::epsilon();

    // Column sums: e^T C against (e^T A) B.
    std::vector<CompensatedSum> col_a(k);  // e^T A
    std::vector<double> col_abs_a(k, 0.0);
    for (std::size_t p = 0; p < k; ++p)
        for (std::size_t i = 0; i < m; ++i) {
            col_a[p].add(a[i + p * m]);
            col_abs_a[p] += std::abs(a[i + p * m]);
        }
    Checksums cols{std::vector<double>(n), std::vector<double>(n), std::vector<double>(n)};
    for (std::size_t j = 0; j < n; ++j) {
        CompensatedSum actual, expected;
        double bound = 0.0;
        for (std::size_t i = 0; i < m; ++i) actual.add(c[i + j * m]);
        for (std::size_t p = 0; p < k; ++p) {
            expected.add(col_a[p].value() * b[p + j * k]);
            bound += col_abs_a[p] * std::abs(b[p + j * k]);
        }
        cols.actual[j] = actual.value();
        cols.expected[j] = expected.value();
        cols.tolerance[j] = gamma * bound;
    }

    // Row sums: C e against A (B e).
    std::vector<CompensatedSum> row_b(k);  // B e
    std::vector<double> row_abs_b(k, 0.0);
    for (std::size_t j = 0; j < n; ++j)
        for (std::size_t p = 0; p < k; ++p) {
            row_b[p].add(b[p + j * k]);
            row_abs_b[p] += std::abs(b[p + j * k]);
        }
    std::vector<CompensatedSum> row_actual(m), row_expected(m);
    std::vector<double> row_bound(m, 0.0);
    for (std::size_t j = 0; j < n; ++j)
        for (std::size_t i = 0; i < m; ++i) row_actual[i].add(c[i + j * m]);
    for (std::size_t p = 0; p < k; ++p) {
        const double bp = row_b[p].value();
        for (std::size_t i = 0; i < m; ++i) {
            row_expected[i].add(a[i + p * m] * bp);
            row_bound[i] += std::abs(a[i + p * m]) * row_abs_b[p];
        }
    }

    GemmCheck check;
    std::vector<std::size_t> bad_rows, bad_cols;
    for (std::size_t j = 0; j < n; ++j) {
        const double error = std::abs(cols.actual[j] - cols.expected[j]);
        if (cols.tolerance[j] > 0) check.worst_column_error = std::max(check.worst_column_error, error / cols.tolerance[j]);
        if (!(error <= cols.tolerance[j])) bad_cols.push_back(j);
    }
    for (std::size_t i = 0; i < m; ++i) {
        const double error = std::abs(row_actual[i].value() - row_expected[i].value());
        if (!(error <= gamma * row_bound[i])) bad_rows.push_back(i);
    }
    check.bad_rows = bad_rows.size();
    check.bad_cols = bad_cols.size();
    for (const std::size_t i : bad_rows)
        for (const std::size_t j : bad_cols) {
            if (check.located.size() >= cap) break;
            const double value = c[i + j * m];
            // With one bad element in the column, the column's discrepancy is its error.
            check.located.push_back({i, j, value, value - (cols.actual[j] - cols.expected[j])});
        }
    return check;
}

std::string describe_failure(const GemmCheck& check) {
    std::string text;
    for (const auto& bad : check.located)
        text += fmt::format("C({}, {}) = {:.17g} (expected {:.17g}); ", bad.row, bad.col, bad.value, bad.expected);
    text += fmt::format("{} row(s) and {} column(s) off their checksums", check.bad_rows, check.bad_cols);
    return text;
}

}  // namespace shakedown::gemm
