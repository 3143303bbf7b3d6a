// The GEMM ladder's table: precision names, their order, their tolerances.
#include "kernels/ladder/ladder_precisions.hpp"

#include "core/errors.hpp"

#include <gtest/gtest.h>

namespace shakedown::kernels {
namespace {

TEST(LadderPrecisions, ParsedInLadderOrderWithoutDuplicates) {
    const auto parsed = parse_precisions("fp8, fp64,bf16,fp64");
    ASSERT_EQ(parsed.size(), 3u);
    EXPECT_EQ(parsed[0], LadderPrecision::fp64);
    EXPECT_EQ(parsed[1], LadderPrecision::bf16);
    EXPECT_EQ(parsed[2], LadderPrecision::fp8);
}

TEST(LadderPrecisions, UnknownOrEmptyNamesAreInputErrors) {
    try {
        parse_precisions("fp64,fp4");
        FAIL() << "fp4 accepted";
    } catch (const InputError& error) {
        EXPECT_NE(std::string(error.what()).find("unknown precision 'fp4'"), std::string::npos) << error.what();
    }
    EXPECT_THROW(parse_precisions(" , "), InputError);
}

TEST(LadderPrecisions, NominalKeysMatchTheSpecTable) {
    EXPECT_EQ(rung(LadderPrecision::fp64).nominal_key, "fp64_tensor");  // cuBLAS DGEMM runs on tensor cores
    EXPECT_EQ(rung(LadderPrecision::fp32).nominal_key, "fp32");
}

TEST(LadderPrecisions, TolerancesGrowAsPrecisionFalls) {
    const std::size_t k = 8192;
    EXPECT_LT(ladder_tolerance(LadderPrecision::fp64, k), 1e-11);
    EXPECT_LT(ladder_tolerance(LadderPrecision::fp64, k), ladder_tolerance(LadderPrecision::fp32, k));
    EXPECT_LT(ladder_tolerance(LadderPrecision::fp32, k), ladder_tolerance(LadderPrecision::tf32, k));
    EXPECT_LT(ladder_tolerance(LadderPrecision::fp16, k), ladder_tolerance(LadderPrecision::bf16, k));
    EXPECT_LE(ladder_tolerance(LadderPrecision::fp8, k), 0.02);  // a corrupted entry (~|C| of sqrt(k)) is far above
}

}  // namespace
}  // namespace shakedown::kernels
