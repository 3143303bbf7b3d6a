// The start-up decision "does this binary have code for this GPU", on planted compute
// capabilities (no GPU needed): a refusal names what was built and what the GPU is.
#include "core/gpu_architectures.hpp"

#include <gtest/gtest.h>

namespace shakedown {
namespace {

std::vector<CudaArchitecture> built(std::string_view list) {
    const auto parsed = parse_cuda_architectures(list);
    EXPECT_TRUE(parsed.has_value()) << list;
    return parsed.value_or(std::vector<CudaArchitecture>{});
}

TEST(GpuArchitectures, Sm90OnlyBuildRefusesAnA100WithTheExactLine) {
    const auto refusal = gpu_architecture_refusal(80, built("90"));
    ASSERT_TRUE(refusal.has_value());
    EXPECT_EQ(*refusal, "built for sm_90 and PTX compute_90, this GPU is sm_80");
    EXPECT_EQ(gpu_architecture_refusal(80, built("90-real")).value_or(""), "built for sm_90, this GPU is sm_80");
}

TEST(GpuArchitectures, Sm90BuildRunsOnAnH100AndAnH200) {
    EXPECT_FALSE(gpu_architecture_refusal(90, built("90")).has_value());
    EXPECT_FALSE(gpu_architecture_refusal(90, built("90-real")).has_value());
}

TEST(GpuArchitectures, DefaultSetCoversEveryPartOfTheSpecTableAndLaterOnesThroughPtx) {
    const auto release = built("80-real;89-real;90-real;100-real;120");
    for (const int part : {80, 86, 89, 90, 100, 103, 120, 121}) EXPECT_FALSE(gpu_architecture_refusal(part, release)) << part;
    EXPECT_FALSE(gpu_architecture_refusal(130, release));  // PTX compute_120 is compiled by the driver
    const auto old = gpu_architecture_refusal(75, release);  // a Turing part: nothing
    ASSERT_TRUE(old.has_value());
    EXPECT_EQ(*old, "built for sm_80, sm_89, sm_90, sm_100, sm_120 and PTX compute_120, this GPU is sm_75");
}

TEST(GpuArchitectures, SassRunsOnLaterMinorsOfItsMajorOnly) {
    const auto ampere = built("80-real");
    EXPECT_FALSE(gpu_architecture_refusal(86, ampere));
    EXPECT_TRUE(gpu_architecture_refusal(90, ampere));  // no PTX: Hopper cannot run sm_80 SASS
    EXPECT_FALSE(gpu_architecture_refusal(90, built("80")));  // with PTX it can
    EXPECT_TRUE(gpu_architecture_refusal(80, built("86-real")));
}

TEST(GpuArchitectures, ArchSpecificAndFamilyBuilds) {
    EXPECT_FALSE(gpu_architecture_refusal(90, built("90a-real")));
    EXPECT_TRUE(gpu_architecture_refusal(100, built("90a")));  // arch-specific PTX: no later part
    EXPECT_FALSE(gpu_architecture_refusal(103, built("100f")));
    EXPECT_TRUE(gpu_architecture_refusal(120, built("100f")));
    EXPECT_EQ(gpu_architecture_refusal(80, built("90a-real")).value_or(""), "built for sm_90a, this GPU is sm_80");
}

TEST(GpuArchitectures, ValuesOnlyCMakeExpandsMeanNoCheck) {
    for (const char* list : {"", "all", "all-major", "native", "90;native", "OFF", "90-bogus"})
        EXPECT_FALSE(parse_cuda_architectures(list).has_value()) << list;
}

}  // namespace
}  // namespace shakedown
