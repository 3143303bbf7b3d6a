// The CPU's vector widths from its flags, an OpenBLAS kernel family's width, and the fit of one
// to the other: which narrower kernel is a choice and which a misdetection to fix.
#include "hardware/vector_isa.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace shakedown::hardware {
namespace {

const nlohmann::json avx512 = {"sse2", "avx", "avx2", "fma", "avx512f"};
const nlohmann::json avx2 = {"sse2", "avx", "avx2", "fma"};

TEST(VectorIsa, TheWidestTheFlagsOffer) {
    EXPECT_EQ(widest_in_flags(avx512), VectorIsa::avx512_fma);
    EXPECT_EQ(widest_in_flags(avx2), VectorIsa::avx2_fma);
    EXPECT_EQ(widest_in_flags(nlohmann::json{"sse2", "avx", "avx2"}), VectorIsa::avx);  // AVX2 without FMA
    EXPECT_EQ(widest_in_flags(nlohmann::json{"sse2"}), VectorIsa::sse2);
    EXPECT_FALSE(widest_in_flags(nlohmann::json{"neon"}));
    EXPECT_FALSE(widest_in_flags(nlohmann::json("avx2")));  // not a list
}

TEST(VectorIsa, KernelFamiliesByWidthInAnyCase) {
    EXPECT_EQ(isa_of_openblas_core("Prescott"), VectorIsa::sse2);
    EXPECT_EQ(isa_of_openblas_core("SANDYBRIDGE"), VectorIsa::avx);
    EXPECT_EQ(isa_of_openblas_core("Zen"), VectorIsa::avx2_fma);
    EXPECT_EQ(isa_of_openblas_core("haswell"), VectorIsa::avx2_fma);
    EXPECT_EQ(isa_of_openblas_core("Cooperlake"), VectorIsa::avx512_fma);
    EXPECT_FALSE(isa_of_openblas_core("NEOVERSEV1"));
}

TEST(VectorIsa, AFullWidthKernelHasNothingToSay) {
    const BlasKernelJudgement judgement = judge_blas_kernel("SkylakeX", "", avx512, "Xeon");
    EXPECT_EQ(judgement.fit, BlasKernelFit::full_width);
    EXPECT_TRUE(judgement.text.empty());
    EXPECT_EQ(judge_blas_kernel("Haswell", "", avx2, "Xeon").fit, BlasKernelFit::full_width);
}

TEST(VectorIsa, AvxTwoKernelsOnAnAvx512CoreAreAChoice) {
    const BlasKernelJudgement library = judge_blas_kernel("Zen", "", avx512, "EPYC 9005");
    EXPECT_EQ(library.fit, BlasKernelFit::narrower_by_choice);
    EXPECT_EQ(library.text, "OpenBLAS runs its Zen kernels (AVX2+FMA) on EPYC 9005, which has AVX-512+FMA: this OpenBLAS "
                            "has no wider kernel for the core; DGEMM is judged against the cores' AVX2+FMA peak (a "
                            "SkylakeX kernel may be faster)");
    const BlasKernelJudgement site = judge_blas_kernel("Haswell", "Haswell", avx512, "EPYC 9005");
    EXPECT_EQ(site.fit, BlasKernelFit::narrower_by_choice);
    EXPECT_NE(site.text.find("OPENBLAS_CORETYPE=Haswell chose them"), std::string::npos) << site.text;
}

TEST(VectorIsa, KernelsNarrowerThanAvxTwoAreToFix) {
    const BlasKernelJudgement detected = judge_blas_kernel("Prescott", "", avx2, "");
    EXPECT_EQ(detected.fit, BlasKernelFit::misdetected);
    EXPECT_EQ(detected.text, "OpenBLAS runs its Prescott kernels (SSE2) on this CPU, which has AVX2+FMA: OpenBLAS did "
                             "not recognize the core; set OPENBLAS_CORETYPE=Haswell for the job (or use a BLAS that "
                             "knows this CPU)");
    EXPECT_EQ(judge_blas_kernel("Sandybridge", "", avx512, "").fit, BlasKernelFit::misdetected);  // AVX without FMA
    const BlasKernelJudgement forced = judge_blas_kernel("Prescott", "Prescott", avx512, "Xeon");
    EXPECT_EQ(forced.fit, BlasKernelFit::forced);
    EXPECT_NE(forced.text.find("OPENBLAS_CORETYPE=Prescott forces them; name a SkylakeX core there"), std::string::npos);
}

TEST(VectorIsa, NothingKnownIsNoJudgment) {
    EXPECT_EQ(judge_blas_kernel("", "", avx512, "").fit, BlasKernelFit::unknown);  // not OpenBLAS
    EXPECT_EQ(judge_blas_kernel("Prescott", "", nlohmann::json(), "").fit, BlasKernelFit::unknown);  // no flags
}

}  // namespace
}  // namespace shakedown::hardware
