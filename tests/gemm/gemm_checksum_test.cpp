// Checksum validation of a GEMM: a correct product passes, one wrong element is found and
// named with its expected value; the generated inputs are reproducible.
#include "gemm/gemm_checksum.hpp"
#include "gemm/matrix_fill.hpp"

#include <gtest/gtest.h>

namespace shakedown::gemm {
namespace {

std::vector<double> naive_product(const std::vector<double>& a, const std::vector<double>& b, std::size_t n) {
    std::vector<double> c(n * n, 0.0);
    for (std::size_t j = 0; j < n; ++j)
        for (std::size_t p = 0; p < n; ++p)
            for (std::size_t i = 0; i < n; ++i) c[i + j * n] += a[i + p * n] * b[p + j * n];
    return c;
}

TEST(GemmChecksum, CorrectProductPasses) {
    const std::size_t n = 70;
    const auto a = random_matrix(1, n, n), b = random_matrix(2, n, n);
    const GemmCheck check = check_gemm_by_checksums(a, b, naive_product(a, b, n), n, n, n);
    EXPECT_TRUE(check.ok()) << describe_failure(check);
    EXPECT_LT(check.worst_column_error, 0.1);  // rounding is far inside the bound
}

TEST(GemmChecksum, OneWrongElementIsLocatedWithItsExpectedValue) {
    const std::size_t n = 64;
    const auto a = random_matrix(1, n, n), b = random_matrix(2, n, n);
    auto c = naive_product(a, b, n);
    const double right = c[5 + 9 * n];
    c[5 + 9 * n] += 1e-6;  // a small error still far above the FP64 rounding bound
    const GemmCheck check = check_gemm_by_checksums(a, b, c, n, n, n);
    ASSERT_FALSE(check.ok());
    ASSERT_EQ(check.located.size(), 1u);
    EXPECT_EQ(check.located[0].row, 5u);
    EXPECT_EQ(check.located[0].col, 9u);
    EXPECT_NEAR(check.located[0].expected, right, 1e-12);
    EXPECT_NE(describe_failure(check).find("C(5, 9)"), std::string::npos) << describe_failure(check);
}

TEST(MatrixFill, EntriesAreReproducibleNonZeroAndInRange) {
    const auto m = random_matrix(7, 50, 40);
    EXPECT_EQ(m[123], random_entry(7, 123));
    for (const double v : m) {
        EXPECT_GE(v, -1.0);
        EXPECT_LT(v, 1.0);
        EXPECT_NE(v, 0.0);
    }
}

}  // namespace
}  // namespace shakedown::gemm
