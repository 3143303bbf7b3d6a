// The GEMM ladder's table: precision names, their order, their tolerances.
#include "kernels/ladder/fp8_setups.hpp"
#include "kernels/ladder/ladder_autotune.hpp"
#include "kernels/ladder/ladder_precisions.hpp"

#include "core/errors.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace shakedown::kernels {
namespace {

TEST(LadderPrecisions, RunInLadderOrderWithoutDuplicates) {
    const auto ordered = in_ladder_order({"fp8", "fp64", "bf16", "fp64"});
    ASSERT_EQ(ordered.size(), 3u);
    EXPECT_EQ(ordered[0], LadderPrecision::fp64);
    EXPECT_EQ(ordered[1], LadderPrecision::bf16);
    EXPECT_EQ(ordered[2], LadderPrecision::fp8);
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

// Scale pointers first (a real FP8 workload scales), then the same forms without them: on the
// H200 with cuBLASLt 13.1 only unscaled set-ups ran, and the rung must still be measured.
TEST(LadderFp8Setups, ScaledSetupsFirstEachWithAnUnscaledFallback) {
    EXPECT_TRUE(fp8_setups.front().scaled);
    bool unscaled_seen = false;
    for (const Fp8Setup& setup : fp8_setups) {
        if (!setup.scaled) unscaled_seen = true;
        EXPECT_FALSE(unscaled_seen && setup.scaled) << "scaled set-up after an unscaled one: " << setup.name;
        if (!setup.scaled) continue;
        const bool has_fallback = std::any_of(fp8_setups.begin(), fp8_setups.end(), [&](const Fp8Setup& other) {
            return !other.scaled && other.output == setup.output && other.c_is_d == setup.c_is_d &&
                   other.workspace_bytes == setup.workspace_bytes;
        });
        EXPECT_TRUE(has_fallback) << setup.name;
    }
}

// The expected product carries the scales; powers of two keep the reference exact, and a
// product != 1 means a library ignoring the scales fails validation.
TEST(LadderFp8Setups, ScaledProductIsAnExactPowerOfTwoOtherThanOne) {
    const double scaled = fp8_product_scale(fp8_setups.front());
    EXPECT_NE(scaled, 1.0);
    int exponent = 0;
    EXPECT_EQ(std::frexp(scaled, &exponent), 0.5);
    EXPECT_EQ(fp8_product_scale(fp8_setups.back()), 1.0);
}

TEST(LadderAutotune, FastestByMedianAndRatioOfTheFirst) {
    // candidate 0 (cublasGemmEx before tuning) 20 ms; 1 has one fast outlier but a slow median; 2 is fastest.
    const std::vector<CandidateTimes> times = {
        {0.02, {0.020, 0.020, 0.021}},
        {0.02, {0.010, 0.030, 0.030}},
        {0.02, {0.0185, 0.0186, 0.0184}},
    };
    const AutotuneChoice choice = choose_fastest(times);
    EXPECT_EQ(choice.best, 2u);
    EXPECT_NEAR(choice.first_over_best, 0.0185 / 0.020, 1e-12);
    EXPECT_EQ(choose_fastest({{0.01, {0.01}}, {0.01, {0.01}}}).best, 0u);  // ties keep the earlier
    EXPECT_DOUBLE_EQ(choose_fastest({{0.01, {0.01}}}).first_over_best, 1.0);
    EXPECT_THROW(choose_fastest({}), std::invalid_argument);
}

TEST(LadderAutotune, BudgetDropsCandidatesFromTheTailButKeepsTheFirst) {
    const std::vector<double> warmups = {0.02, 0.02, 0.02, 0.02};
    EXPECT_EQ(candidates_within_budget(warmups, 3, 10.0), 4u);
    EXPECT_EQ(candidates_within_budget(warmups, 3, 0.13), 2u);  // 3 x 0.02 per candidate
    EXPECT_EQ(candidates_within_budget(warmups, 3, 0.001), 1u);
    EXPECT_EQ(candidates_within_budget({}, 3, 1.0), 0u);
}

TEST(LadderAutotune, LastOverFirstShowsASlowdownWithinTheBurst) {
    EXPECT_NEAR(last_over_first({0.0142, 0.0150, 0.0166}), 0.0142 / 0.0166, 1e-12);
    EXPECT_DOUBLE_EQ(last_over_first({0.02}), 1.0);
    EXPECT_EQ(last_over_first({}), 0.0);
}

}  // namespace
}  // namespace shakedown::kernels
