// The embedded GPU spec table: known parts by name, derived figures for unknown ones.
#include "hardware/gpu_specs.hpp"

#include <gtest/gtest.h>

namespace shakedown::hardware {
namespace {

gpu::GpuFacts h200() {
    return {"NVIDIA H200", 132, 9, 0, 1980.0, 3201.0, 6016, 150'000'000'000ull};
}

TEST(GpuSpecs, H200UsesTheFp64TensorFigureForDgemm) {
    const GpuNominal nominal = gpu_nominal(h200());
    EXPECT_FALSE(nominal.derived);
    EXPECT_EQ(nominal.part, "NVIDIA H200 SXM");
    EXPECT_DOUBLE_EQ(*nominal.tflops_for("fp64_tensor"), 67.0);
    EXPECT_DOUBLE_EQ(*nominal.tflops_for("fp64"), 34.0);
    EXPECT_DOUBLE_EQ(*nominal.tflops_for("bf16"), 990.0);
    EXPECT_DOUBLE_EQ(*nominal.memory_gbs, 4800.0);
    EXPECT_NE(nominal.source.find("datasheet"), std::string::npos);
}

TEST(GpuSpecs, EveryListedPartIsFoundByItsCudaName) {
    const std::vector<std::pair<std::string, std::string>> names = {
        {"NVIDIA H100 80GB HBM3", "NVIDIA H100 SXM"}, {"NVIDIA H100 PCIe", "NVIDIA H100 PCIe"},
        {"NVIDIA H800", "NVIDIA H800 SXM"},           {"NVIDIA A100-SXM4-80GB", "NVIDIA A100 SXM 80GB"},
        {"NVIDIA A100 80GB PCIe", "NVIDIA A100 PCIe 80GB"}, {"NVIDIA L40S", "NVIDIA L40S"},
        {"NVIDIA L20", "NVIDIA L20"},                 {"NVIDIA GeForce RTX 4090", "NVIDIA GeForce RTX 4090"},
        {"NVIDIA B200", "NVIDIA B200"}};
    for (const auto& [cuda_name, part] : names) {
        gpu::GpuFacts facts;
        facts.name = cuda_name;
        const GpuNominal nominal = gpu_nominal(facts);
        EXPECT_EQ(nominal.part, part) << cuda_name;
        EXPECT_TRUE(nominal.tflops_for("fp64_tensor").has_value()) << cuda_name;  // DGEMM always has a nominal
        EXPECT_TRUE(nominal.memory_gbs.has_value()) << cuda_name;
    }
}

TEST(GpuSpecs, UnknownPartIsDerivedFromTheDevice) {
    gpu::GpuFacts facts = h200();
    facts.name = "NVIDIA Hypothetical X";
    const GpuNominal nominal = gpu_nominal(facts);
    EXPECT_TRUE(nominal.derived);
    EXPECT_EQ(nominal.source.rfind("derived", 0), 0u);
    // 132 SMs x 1.98 GHz x 64 FP64 FMA x 2 = 33.45 TFLOP/s (the datasheet's 34)
    EXPECT_NEAR(*nominal.tflops_for("fp64"), 33.45, 0.01);
    // 3201 MHz x 2 x 6016 bit / 8 = 4814 GB/s
    EXPECT_NEAR(*nominal.memory_gbs, 4814.0, 1.0);
    EXPECT_FALSE(nominal.tflops_for("fp8").has_value());
}

// The NVLink links a part has (what the analyzer's nvlink_down rule expects without a profile):
// SXM parts by their NVML names; none for PCIe cards and NVL parts, whose bridges vary.
TEST(GpuSpecTable, NvlinkCountsOfSxmPartsOnly) {
    ASSERT_TRUE(part_nvlinks("NVIDIA H200"));
    EXPECT_EQ(part_nvlinks("NVIDIA H200")->links, 18);
    EXPECT_EQ(part_nvlinks("NVIDIA H200")->part, "NVIDIA H200 SXM");
    EXPECT_EQ(part_nvlinks("NVIDIA H100 80GB HBM3")->links, 18);
    EXPECT_EQ(part_nvlinks("NVIDIA A100-SXM4-80GB")->links, 12);
    EXPECT_FALSE(part_nvlinks("NVIDIA H200 NVL"));
    EXPECT_FALSE(part_nvlinks("NVIDIA H100 PCIe"));
    EXPECT_FALSE(part_nvlinks("NVIDIA L40S"));
    EXPECT_FALSE(part_nvlinks("Unknown GPU"));
    EXPECT_EQ(gpu_nominal({"NVIDIA H200 NVL", 132, 9, 0, 1785.0, 3201.0, 6016, 150'000'000'000ull}).part, "NVIDIA H200 NVL");
}

}  // namespace
}  // namespace shakedown::hardware
