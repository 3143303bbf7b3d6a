// The derived CPU nominal: FP64 FLOPs per cycle from the vector extensions, cores x clock.
#include "hardware/cpu_nominal.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace shakedown::hardware {
namespace {

TEST(CpuNominal, FlopsPerCycleFollowTheVectorExtensions) {
    std::string extension;
    EXPECT_EQ(fp64_flops_per_cycle(nlohmann::json{"sse2", "avx", "avx2", "fma", "avx512f"}, "Intel Xeon", extension), 32);
    EXPECT_EQ(fp64_flops_per_cycle(nlohmann::json{"sse2", "avx", "avx2", "fma", "avx512f"}, "AMD EPYC 9654", extension), 16);
    EXPECT_EQ(fp64_flops_per_cycle(nlohmann::json{"avx2", "fma", "avx512f", "avx512_vp2intersect"}, "AMD EPYC 9755", extension),
              32);
    EXPECT_EQ(extension, "avx512f+fma");
    EXPECT_EQ(fp64_flops_per_cycle(nlohmann::json{"sse2", "avx", "avx2", "fma"}, "", extension), 16);
    EXPECT_EQ(fp64_flops_per_cycle(nlohmann::json{"sse2", "avx"}, "", extension), 8);
    EXPECT_EQ(fp64_flops_per_cycle(nlohmann::json{"sse2"}, "", extension), 4);
    EXPECT_EQ(fp64_flops_per_cycle(nlohmann::json::array(), "", extension), 0);
}

TEST(CpuNominal, NodePeakIsCoresTimesClockTimesFlopsPerCycle) {
    const nlohmann::json inventory = {{"cpu", {{"cores", 32}, {"max_mhz", 2500.0}, {"flags", {"avx2", "fma", "avx512f"}}}}};
    const CpuNominal nominal = derive_cpu_nominal(inventory);
    ASSERT_TRUE(nominal.node_gflops);
    EXPECT_DOUBLE_EQ(*nominal.node_gflops, 32 * 2.5 * 32);
    EXPECT_EQ(nominal.explanation.rfind("derived", 0), 0u);
    EXPECT_FALSE(derive_cpu_nominal(nlohmann::json::object()).node_gflops);
}

}  // namespace
}  // namespace shakedown::hardware
