// lu_fp64's arithmetic beside the factorization: HPL's operation count and scaled residual,
// the process grid's forms, and the inputs every rank and the GPU generate alike.
#include "kernels/lu/lu_grid.hpp"
#include "kernels/lu/lu_math.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <set>

namespace shakedown::kernels::lu {
namespace {

TEST(LuMath, HplRateConvention) {
    EXPECT_DOUBLE_EQ(hpl_flops(1000.0), 2.0 / 3.0 * 1e9 + 2.0 * 1e6);
    EXPECT_DOUBLE_EQ(hpl_tflops(1000.0, 1.0), (2.0 / 3.0 * 1e9 + 2e6) * 1e-12);
    EXPECT_EQ(hpl_tflops(1000.0, 0.0), 0.0);
}

TEST(LuMath, ScaledResidualIsHplsFormula) {
    // ||r|| / (eps (||A|| ||x|| + ||b||) n) with eps = 2^-53.
    EXPECT_NEAR(scaled_residual(1e-12, 250.0, 2.0, 0.5, 1000.0), 1e-12 / (std::ldexp(1.0, -53) * (500.5) * 1000.0), 1e-9);
    EXPECT_LT(scaled_residual(1e-13, 250.0, 2.0, 0.5, 1000.0), residual_limit);
    EXPECT_GT(scaled_residual(1e-6, 250.0, 2.0, 0.5, 1000.0), residual_limit);
    EXPECT_EQ(scaled_residual(0.0, 0.0, 0.0, 0.0, 10.0), 0.0);
    EXPECT_GT(scaled_residual(1.0, 0.0, 0.0, 0.0, 10.0), residual_limit);  // no scale and a residual: wrong
}

TEST(LuMath, GridsAreGivenAsPxQOrTheSquarest) {
    ASSERT_TRUE(parse_grid("2x4"));
    EXPECT_EQ(parse_grid("2x4")->rows, 2);
    EXPECT_EQ(parse_grid("2x4")->columns, 4);
    for (const char* bad : {"", "x", "2x", "x4", "2*4", "0x4", "2x4x1", "-1x2", "ax2"}) EXPECT_FALSE(parse_grid(bad)) << bad;
    EXPECT_EQ(to_string(squarest_grid(1)), "1x1");
    EXPECT_EQ(to_string(squarest_grid(2)), "1x2");
    EXPECT_EQ(to_string(squarest_grid(4)), "2x2");
    EXPECT_EQ(to_string(squarest_grid(6)), "2x3");
    EXPECT_EQ(to_string(squarest_grid(7)), "1x7");
    EXPECT_EQ(to_string(squarest_grid(16)), "4x4");
}

TEST(LuMath, InputsAreUniformAndDependOnEveryCoordinate) {
    std::set<double> seen;
    double sum = 0.0;
    for (std::uint64_t j = 0; j < 50; ++j)
        for (std::uint64_t i = 0; i < 50; ++i) {
            const double value = input_entry(7, i, j, 50);
            EXPECT_GE(value, -0.5);
            EXPECT_LT(value, 0.5);
            seen.insert(value);
            sum += value;
        }
    EXPECT_EQ(seen.size(), 2500u);
    EXPECT_NEAR(sum / 2500.0, 0.0, 0.02);
    EXPECT_NE(input_entry(7, 1, 2, 50), input_entry(8, 1, 2, 50));
    EXPECT_EQ(input_entry(7, 1, 2, 50), input_entry(7, 1, 2, 50));
}

}  // namespace
}  // namespace shakedown::kernels::lu
