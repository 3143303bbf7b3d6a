#include "telemetry/gpu_telemetry.hpp"
#include "telemetry/nvml.hpp"
#include "telemetry/telemetry_source.hpp"
#include "telemetry_test_support.hpp"

#include <gtest/gtest.h>

#include <iostream>

#include <cmath>
#include <cstdlib>
#include <filesystem>

namespace shakedown {
namespace {

TEST(Nvml, DefaultSourcesFollowWhatNvmlSees) {
    std::string why;
    const auto nvml = Nvml::load(Nvml::default_library, &why);
    // No RDMA ports here even on a host that has them: this test is about the GPU sources.
    auto sources = default_telemetry_sources("/nonexistent/infiniband");
    // Nor the PCIe AER table, which follows the host's PCI devices (pcie_aer_telemetry_test.cpp).
    std::erase_if(sources, [](const auto& source) { return source->device() == "pcie_aer"; });
    ASSERT_FALSE(sources.empty());
    EXPECT_EQ(sources[0]->device(), "host");
    if (!nvml) {
        // This CI machine: no driver. No GPU sources, no error, a reason to log.
        EXPECT_FALSE(why.empty());
        EXPECT_EQ(sources.size(), 1u);
    } else {
        EXPECT_EQ(sources.size(), 1u + 2 * nvml->device_count());  // per GPU: its table and its health table
        EXPECT_EQ(sources[1]->device(), "gpu0");
    }
}

TEST(Nvml, LibraryWithoutNvmlEntryPointsIsRefused) {
    std::string why;
    EXPECT_EQ(Nvml::load("libc.so.6", &why), nullptr);
    EXPECT_NE(why.find("lacks"), std::string::npos) << why;
    EXPECT_EQ(Nvml::load("/nonexistent/libnvidia-ml.so.1", &why), nullptr);
    EXPECT_NE(why.find("not loadable"), std::string::npos) << why;
}

// The fake library next to this executable (as a runtime bundle ships it), else in the build tree.
std::string fake_nvml_path() {
    const auto beside = std::filesystem::read_symlink("/proc/self/exe").parent_path() /
                        std::filesystem::path(SHAKEDOWN_FAKE_NVML_PATH).filename();
    return std::filesystem::exists(beside) ? beside.string() : std::string(SHAKEDOWN_FAKE_NVML_PATH);
}

class FakeNvml : public ::testing::Test {
protected:
    void SetUp() override {
        std::string why;
        nvml_ = Nvml::load(fake_nvml_path(), &why);
        ASSERT_NE(nvml_, nullptr) << why;
    }
    std::shared_ptr<const Nvml> nvml_;
};

TEST_F(FakeNvml, DeviceFacts) {
    EXPECT_EQ(nvml_->device_count(), 2u);
    EXPECT_EQ(nvml_->driver_version(), "999.99");
    EXPECT_FALSE(nvml_->device(2));
    const auto gpu = nvml_->device(0);
    ASSERT_TRUE(gpu);
    EXPECT_EQ(gpu->name(), "Fake H200");
    EXPECT_EQ(gpu->uuid(), "GPU-00000000-1111-2222-3333-444444444444");
    const auto pci = gpu->pci_info();
    ASSERT_TRUE(pci);
    EXPECT_STREQ(pci->bus_id, "00000000:19:00.0");
    EXPECT_EQ(pci->pci_device_id, 0x233510deu);
    EXPECT_EQ(gpu->compute_capability(), "9.0");
    EXPECT_EQ(gpu->max_clock_mhz(nvml_abi::clock_sm), 1980u);
    const auto link = gpu->pcie_link();
    EXPECT_EQ(link.generation_max, 5u);
    EXPECT_EQ(link.width_current, 8u);
    EXPECT_EQ(link.width_max, 16u);
    EXPECT_EQ(gpu->nvlink_active_links(), 18u);
    EXPECT_EQ(nvml_->device(1)->nvlink_active_links(), 0u);  // PCIe card: "not supported"
}

// The board's serial and VBIOS, distinct per GPU; unsupported, no text but NVML's return code
// (the fake reads SHAKEDOWN_FAKE_NVML_UNSUPPORTED on every call).
TEST_F(FakeNvml, SerialAndVbiosOrWhyNot) {
    const auto gpu0 = nvml_->device(0);
    const auto gpu1 = nvml_->device(1);
    EXPECT_EQ(gpu0->serial().text, "1654923000017");
    EXPECT_EQ(gpu0->serial().why, "");
    EXPECT_EQ(gpu0->vbios_version().text, "96.00.AF.00.01");
    EXPECT_EQ(gpu1->serial().text, "1321021004242");
    EXPECT_EQ(gpu1->vbios_version().text, "92.00.45.00.06");
    ::setenv("SHAKEDOWN_FAKE_NVML_UNSUPPORTED", "nvmlDeviceGetSerial,nvmlDeviceGetVbiosVersion", 1);
    const NvmlText serial = gpu0->serial();
    const NvmlText vbios = gpu0->vbios_version();
    ::unsetenv("SHAKEDOWN_FAKE_NVML_UNSUPPORTED");
    EXPECT_FALSE(serial.text);
    EXPECT_EQ(serial.why, "nvmlDeviceGetSerial returned 3 (fake error)");
    EXPECT_FALSE(vbios.text);
    EXPECT_EQ(vbios.why, "nvmlDeviceGetVbiosVersion returned 3 (fake error)");
    EXPECT_EQ(gpu0->serial().text, "1654923000017");  // asked again once supported
}

TEST_F(FakeNvml, GpuTelemetryColumnsAndReasonFlags) {
    GpuTelemetry hot(nvml_, *nvml_->device(0));
    EXPECT_EQ(hot.device(), "gpu0");
    EXPECT_EQ(hot.attributes().at("uuid"), "GPU-00000000-1111-2222-3333-444444444444");
    EXPECT_EQ(hot.attributes().at("pci_bus_id"), "00000000:19:00.0");
    auto row = hot.sample();
    ASSERT_EQ(row.size(), hot.columns().size());
    EXPECT_EQ(column(hot, row, "temperature_c"), 71.0);
    EXPECT_DOUBLE_EQ(column(hot, row, "power_w"), 612.345);
    EXPECT_EQ(column(hot, row, "power_limit_w"), 700.0);
    EXPECT_EQ(column(hot, row, "sm_clock_mhz"), 1755.0);
    EXPECT_EQ(column(hot, row, "mem_clock_mhz"), 2619.0);
    EXPECT_EQ(column(hot, row, "throttle_reasons"), static_cast<double>(0x4 | 0x40));
    EXPECT_EQ(column(hot, row, "power_capped"), 1.0);
    EXPECT_EQ(column(hot, row, "thermal"), 1.0);
    EXPECT_EQ(column(hot, row, "hw_slowdown"), 0.0);
    EXPECT_EQ(column(hot, row, "hw_power_brake"), 0.0);
    EXPECT_EQ(column(hot, row, "ecc_corrected_total"), 3.0);
    EXPECT_EQ(column(hot, row, "ecc_uncorrected_total"), 0.0);
    EXPECT_EQ(column(hot, row, "util_gpu_pct"), 97.0);
    EXPECT_EQ(column(hot, row, "util_mem_pct"), 42.0);
    EXPECT_EQ(column(hot, row, "mem_used_bytes"), static_cast<double>(1ull << 30));
    const double energy = column(hot, row, "energy_j");  // a counter: each read 612.345 J above the last
    EXPECT_GE(energy, 987654.321);
    EXPECT_NEAR(column(hot, hot.sample(), "energy_j") - energy, 612.345, 1e-6);

    GpuTelemetry cool(nvml_, *nvml_->device(1));
    row = cool.sample();
    EXPECT_EQ(column(cool, row, "power_capped"), 0.0);
    EXPECT_EQ(column(cool, row, "thermal"), 0.0);
    EXPECT_TRUE(std::isnan(column(cool, row, "ecc_corrected_total")));  // unsupported, not zero
    EXPECT_TRUE(std::isnan(column(cool, row, "energy_j")));             // no counter: not a zero
}

// On a GPU node: the real driver's answers through our declarations must be plausible. A wrong
// struct layout or enum value shows up here as garbage (bus ids, clocks, temperatures).
TEST(RealNvml, ReportsPlausibleValues) {
    std::string why;
    const auto nvml = Nvml::load(Nvml::default_library, &why);
    if (!nvml || nvml->device_count() == 0) GTEST_SKIP() << "no CUDA device (NVML: " << why << ")";
    EXPECT_FALSE(nvml->driver_version().value_or("").empty());
    for (unsigned index = 0; index < nvml->device_count(); ++index) {
        const auto gpu = nvml->device(index);
        ASSERT_TRUE(gpu);
        SCOPED_TRACE("NVML device " + std::to_string(index) + " " + gpu->name().value_or("?"));
        EXPECT_EQ(gpu->uuid().value_or("").rfind("GPU-", 0), 0u);
        const auto pci = gpu->pci_info();
        ASSERT_TRUE(pci);
        EXPECT_EQ(std::string(pci->bus_id).size(), 16u) << pci->bus_id;  // "00000000:19:00.0"
        EXPECT_EQ(pci->pci_device_id & 0xffffu, 0x10deu);              // NVIDIA's vendor id
        EXPECT_EQ(gpu->compute_capability().value_or("").find('.'), 1u);
        EXPECT_GT(gpu->max_clock_mhz(nvml_abi::clock_sm).value_or(0), 500u);
        EXPECT_GT(gpu->memory().value_or(nvml_abi::Memory{}).total, 1ull << 30);
        const auto link = gpu->pcie_link();
        EXPECT_GE(link.generation_max.value_or(0), 3u);
        EXPECT_GE(link.width_max.value_or(0), 8u);

        GpuTelemetry telemetry(nvml, *gpu);
        const auto row = telemetry.sample();
        ASSERT_EQ(row.size(), telemetry.columns().size());
        const double celsius = column(telemetry, row, "temperature_c");
        EXPECT_GT(celsius, 5.0);
        EXPECT_LT(celsius, 110.0);
        EXPECT_GT(column(telemetry, row, "power_w"), 5.0);
        EXPECT_GT(column(telemetry, row, "power_limit_w"), 50.0);
        EXPECT_GT(column(telemetry, row, "sm_clock_mhz"), 0.0);
        EXPECT_FALSE(std::isnan(column(telemetry, row, "throttle_reasons")));
        EXPECT_GE(column(telemetry, row, "util_gpu_pct"), 0.0);
        EXPECT_LE(column(telemetry, row, "util_gpu_pct"), 100.0);
        std::cout << "  gpu" << index << " " << gpu->name().value_or("?") << " bus " << pci->bus_id << " "
                  << celsius << " C " << column(telemetry, row, "power_w") << " W / "
                  << column(telemetry, row, "power_limit_w") << " W, SM " << column(telemetry, row, "sm_clock_mhz")
                  << " MHz, reasons 0x" << std::hex << static_cast<unsigned long long>(column(telemetry, row, "throttle_reasons"))
                  << std::dec << ", PCIe gen " << link.generation_current.value_or(0) << "/" << link.generation_max.value_or(0)
                  << " x" << link.width_current.value_or(0) << "/" << link.width_max.value_or(0) << ", NVLink "
                  << gpu->nvlink_active_links().value_or(0) << "\n";
    }
}

}  // namespace
}  // namespace shakedown
