// The GEMM ladder's table: precision names, their order, their tolerances.
#include "kernels/ladder/fp8_setups.hpp"
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

// The first set-up is PyTorch's _scaled_mm form (no C, beta 0), which ran on the H200 when the
// in-place form was refused; the in-place form stays as a fallback; workspaces fit the buffer.
TEST(LadderFp8Setups, TorchFormFirstAndWorkspacesFit) {
    EXPECT_EQ(fp8_setups.front().output, Fp8Output::bf16);
    EXPECT_FALSE(fp8_setups.front().c_is_d);
    bool in_place_tried = false;
    for (const Fp8Setup& setup : fp8_setups) {
        EXPECT_LE(setup.workspace_bytes, fp8_max_workspace_bytes) << setup.name;
        in_place_tried = in_place_tried || setup.c_is_d;
    }
    EXPECT_TRUE(in_place_tried);
}

// "Not measured" carries the library's words: every set-up tried, its refusals counted.
TEST(LadderFp8Setups, RefusalsAreSummarizedPerSetupWithTheLibrarysWords) {
    const std::vector<Fp8Attempt> attempts = {
        {0, 0, "id 66", "CUBLAS_STATUS_NOT_SUPPORTED"},
        {0, 1, "id 67", "CUBLAS_STATUS_NOT_SUPPORTED"},
        {0, 2, "id 68", "CUBLAS_STATUS_INVALID_VALUE"},
        {1, -1, "", "no algorithm offered"},
        {2, 0, "id 66", "ran"},
    };
    const std::string summary = summarize_fp8_refusals(attempts);
    EXPECT_EQ(summary, std::string(fp8_setups[0].name) +
                           ": 3 algorithms refused: 1 x CUBLAS_STATUS_INVALID_VALUE 2 x CUBLAS_STATUS_NOT_SUPPORTED; " +
                           std::string(fp8_setups[1].name) + ": heuristic: no algorithm offered");
    EXPECT_EQ(summarize_fp8_refusals({}), "");
}

}  // namespace
}  // namespace shakedown::kernels
