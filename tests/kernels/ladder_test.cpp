// The GEMM ladder's table: precision names, their order, their tolerances, the emulated
// rungs' judge against native, and the declared parameters.
#include "kernels/ladder/fp8_setups.hpp"
#include "kernels/ladder/ladder_autotune.hpp"
#include "kernels/ladder/ladder_precisions.hpp"
#include "kernels/specs.hpp"

#include "core/errors.hpp"
#include "core/params.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

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

// Each emulated rung right after the native rung it is judged against; the enum values (the
// samples' `precision` column) of the older rungs unchanged.
TEST(LadderPrecisions, EmulatedRungsFollowTheirNativeRung) {
    std::vector<std::string> names;
    for (const LadderRung& rung : ladder_rungs) names.emplace_back(rung.name);
    EXPECT_EQ(names, (std::vector<std::string>{"fp64", "fp64_emulated", "fp32", "fp32_emulated", "tf32", "bf16", "fp16", "fp8"}));
    EXPECT_EQ(rung(LadderPrecision::fp64_emulated).native, LadderPrecision::fp64);
    EXPECT_EQ(rung(LadderPrecision::fp32_emulated).native, LadderPrecision::fp32);
    EXPECT_TRUE(is_emulated(LadderPrecision::fp64_emulated));
    EXPECT_FALSE(is_emulated(LadderPrecision::fp64));
    EXPECT_EQ(rung(LadderPrecision::fp64_emulated).nominal_key, "");  // no datasheet figure: no nominal
    EXPECT_EQ(rung(LadderPrecision::fp32_emulated).nominal_key, "");
    EXPECT_EQ(static_cast<int>(LadderPrecision::fp8), 5);
    EXPECT_EQ(static_cast<int>(LadderPrecision::fp64_emulated), 6);
    EXPECT_EQ(static_cast<int>(LadderPrecision::fp32_emulated), 7);
    const auto ordered = in_ladder_order({"fp32_emulated", "fp8", "fp64_emulated", "fp64"});
    EXPECT_EQ(ordered, (std::vector<LadderPrecision>{LadderPrecision::fp64, LadderPrecision::fp64_emulated,
                                                     LadderPrecision::fp32_emulated, LadderPrecision::fp8}));
}

// 16 sqrt(k) 2^-p: at 8192^3 fp64_emulated 1.61e-13 (the H200's 7.4e-15 passes 22x under it, and
// the 1e-12 is looser), fp32_emulated 8.6e-5; a fixed count of b bits adds 2^-b,
// which the H200's fixed-count figures pass (8 bits: 1.2e-4, 40: 4.1e-14, 64: 7.4e-15).
TEST(LadderEmulation, ToleranceFollowsTheRetainedPrecision) {
    const std::size_t k = 8192;
    EXPECT_EQ(effective_mantissa_bits(LadderPrecision::fp64_emulated), 53);
    EXPECT_EQ(effective_mantissa_bits(LadderPrecision::fp64_emulated, 40), 40);
    EXPECT_EQ(effective_mantissa_bits(LadderPrecision::fp64_emulated, 64), 53);  // no better than the FP64 it is compared with
    EXPECT_EQ(effective_mantissa_bits(LadderPrecision::fp32_emulated, 40), 24);  // the bit count is fp64's only
    const double fp64_tolerance = emulation_tolerance(LadderPrecision::fp64_emulated, k);
    EXPECT_NEAR(fp64_tolerance, 1.6078e-13, 1e-17);
    EXPECT_LT(fp64_tolerance, 1e-12);
    EXPECT_GT(fp64_tolerance, 20 * 7.38e-15);
    EXPECT_GT(emulation_tolerance(LadderPrecision::fp64_emulated, 4096), 20 * 5.13e-15);  // the quick suite's size
    EXPECT_NEAR(emulation_tolerance(LadderPrecision::fp32_emulated, k), 8.6317e-5, 1e-9);
    EXPECT_DOUBLE_EQ(emulation_tolerance(LadderPrecision::fp64_emulated, 4 * k), 2 * fp64_tolerance);
    EXPECT_DOUBLE_EQ(emulation_tolerance(LadderPrecision::fp64_emulated, k, 40), fp64_tolerance + std::ldexp(1.0, -40));
    EXPECT_NEAR(emulation_tolerance(LadderPrecision::fp64_emulated, k, 8), 0.00390625, 1e-12);
    EXPECT_NEAR(emulation_tolerance(LadderPrecision::fp64_emulated, k, 64), fp64_tolerance, 1e-18);
    EXPECT_LT(20 * 1.21e-4, emulation_tolerance(LadderPrecision::fp64_emulated, k, 8));
    EXPECT_LT(20 * 4.08e-14, emulation_tolerance(LadderPrecision::fp64_emulated, k, 40));
    EXPECT_LT(7.38e-15, emulation_tolerance(LadderPrecision::fp64_emulated, k, 64));
    // One precision step short fails: 8 bits fewer than a count's own figure, BF16x9 as bf16x3.
    EXPECT_GT(0.04 * std::ldexp(1.0, -32), 5 * emulation_tolerance(LadderPrecision::fp64_emulated, k, 40));
    EXPECT_GT(0.7 * std::ldexp(1.0, -16) * std::sqrt(k), 5 * emulation_tolerance(LadderPrecision::fp32_emulated, k));
    // The sampled check against the host reference: fp64's bound (plus 16 x 2^-b for a fixed count), fp32's for BF16x9.
    EXPECT_DOUBLE_EQ(ladder_tolerance(LadderPrecision::fp64_emulated, k), ladder_tolerance(LadderPrecision::fp64, k));
    EXPECT_DOUBLE_EQ(ladder_tolerance(LadderPrecision::fp64_emulated, k, 45),
                     ladder_tolerance(LadderPrecision::fp64, k) + 16 * std::ldexp(1.0, -45));
    EXPECT_DOUBLE_EQ(ladder_tolerance(LadderPrecision::fp32_emulated, k), ladder_tolerance(LadderPrecision::fp32, k));
}

TEST(LadderEmulation, JudgeNormalisesByTheLargestNativeEntryAndNamesTheFigure) {
    const double tolerance = emulation_tolerance(LadderPrecision::fp64_emulated, 8192);
    const EmulationVerdict healthy = judge_emulation(7e-15 * 160.0, 160.0, tolerance);  // the H200 figure
    EXPECT_NEAR(healthy.ratio, 7e-15, 1e-20);
    EXPECT_FALSE(healthy.identical);
    EXPECT_EQ(healthy.failure, "");

    const EmulationVerdict off = judge_emulation(1.6e-9, 160.0, tolerance);  // about 2^-40 of max |C|
    EXPECT_NEAR(off.ratio, 1e-11, 1e-24);
    EXPECT_EQ(off.failure, "max |C_emul - C_native| / max |C_native| = 1e-11 > tolerance 1.61e-13");

    const EmulationVerdict same = judge_emulation(0.0, 160.0, tolerance);
    EXPECT_TRUE(same.identical);  // the caller reports fp32_emulated as run natively, not as a pass
    EXPECT_EQ(same.ratio, 0.0);
    EXPECT_EQ(same.failure, "");

    EXPECT_NE(judge_emulation(1.0, 0.0, tolerance).failure, "");  // an all-zero native product proves nothing
    EXPECT_NE(judge_emulation(std::nan(""), 160.0, tolerance).failure, "");
    EXPECT_NE(judge_emulation(1.0, INFINITY, tolerance).failure, "");
    EXPECT_EQ(judge_emulation(tolerance * 160.0, 160.0, tolerance).failure, "");  // the bound itself passes
}

const ParamSpec& ladder_param(const std::string& name) {
    for (const ParamSpec& param : gemm_ladder_spec().parameters)
        if (param.name == name) return param;
    throw std::out_of_range(name);
}

// The emulated rungs run by default (the report shows native beside emulated); the quick suite
// runs them at 4096 (an eighth of the work); the mantissa bits are auto or 8..64, checked at load.
TEST(LadderEmulation, ParametersDeclaredWithDefaultsAndRanges) {
    const auto& precisions = std::get<std::vector<std::string>>(ladder_param("precisions").default_value);
    EXPECT_NE(std::find(precisions.begin(), precisions.end(), "fp64_emulated"), precisions.end());
    EXPECT_NE(std::find(precisions.begin(), precisions.end(), "fp32_emulated"), precisions.end());

    const ParamSpec& emulated_n = ladder_param("emulated_n");
    EXPECT_TRUE(std::holds_alternative<Automatic>(emulated_n.default_value));
    EXPECT_EQ(std::get<std::int64_t>(emulated_n.suite_defaults.at("quick")), 4096);
    EXPECT_EQ(emulated_n.suite_defaults.count("full"), 0u);
    const TestParams quick(gemm_ladder_spec().parameters, {}, "quick");
    EXPECT_EQ(quick.optional_integer("emulated_n"), std::optional<std::int64_t>(4096));
    EXPECT_EQ(TestParams(gemm_ladder_spec().parameters, {}, "full").optional_integer("emulated_n"), std::nullopt);

    const ParamSpec& bits = ladder_param("fp64_emulation_mantissa_bits");
    EXPECT_TRUE(std::holds_alternative<Automatic>(bits.default_value));
    EXPECT_EQ(bits.violation(automatic), std::nullopt);
    EXPECT_EQ(bits.violation(ParamValue{std::int64_t{53}}), std::nullopt);
    EXPECT_EQ(bits.violation(ParamValue{std::int64_t{7}}), "must be between 8 and 64, got 7");
    EXPECT_EQ(bits.violation(ParamValue{std::int64_t{65}}), "must be between 8 and 64, got 65");
    EXPECT_EQ(bits.violation(ParamValue{std::string("all")}), "must be a whole number, not all");
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
