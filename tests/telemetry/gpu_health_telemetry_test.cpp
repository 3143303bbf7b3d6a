// GpuHealthTelemetry against the fake libnvidia-ml (tests/telemetry/fake_nvml.cpp): values read,
// faults the fake is told to show through its environment, and counters that cannot be read
// (NOT_SUPPORTED, a symbol an old driver lacks) as NaN with the reason, never as zero.
#include "telemetry/gpu_health_telemetry.hpp"
#include "telemetry/telemetry_columns.hpp"
#include "telemetry_test_support.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <iostream>

namespace shakedown {
namespace {

namespace col = telemetry_columns::gpu_health;

std::string beside_or(const char* path) {
    const auto beside = std::filesystem::read_symlink("/proc/self/exe").parent_path() / std::filesystem::path(path).filename();
    return std::filesystem::exists(beside) ? beside.string() : std::string(path);
}

// Sets one fake-NVML variable for a test's lifetime.
class FakeEnv {
public:
    FakeEnv(const char* name, const char* value) : name_(name) { ::setenv(name, value, 1); }
    ~FakeEnv() { ::unsetenv(name_); }

private:
    const char* name_;
};

class FakeNvmlHealth : public ::testing::Test {
protected:
    std::shared_ptr<const Nvml> load(const char* path) {
        std::string why;
        auto nvml = Nvml::load(beside_or(path), &why);
        EXPECT_NE(nvml, nullptr) << why;
        return nvml;
    }
    GpuHealthTelemetry source(unsigned index, const char* path = SHAKEDOWN_FAKE_NVML_PATH) {
        nvml_ = load(path);
        return GpuHealthTelemetry(nvml_, *nvml_->device(index), std::chrono::milliseconds(0));
    }
    double value(GpuHealthTelemetry& source, std::string_view name) {
        return column(source, source.sample(), std::string(name));
    }
    std::shared_ptr<const Nvml> nvml_;
};

TEST_F(FakeNvmlHealth, HealthyGpuReadsEveryCounter) {
    auto health = source(0);
    EXPECT_EQ(health.device(), "health_gpu0");
    const auto row = health.sample();
    ASSERT_EQ(row.size(), health.columns().size());
    EXPECT_EQ(column(health, row, "ecc_sbe_volatile"), 3.0);
    EXPECT_EQ(column(health, row, "ecc_dbe_volatile"), 0.0);
    EXPECT_EQ(column(health, row, "ecc_dbe_aggregate"), 0.0);
    EXPECT_EQ(column(health, row, "retired_pages_dbe"), 0.0);
    EXPECT_EQ(column(health, row, "retired_pages_pending"), 0.0);
    EXPECT_EQ(column(health, row, "remap_corrected"), 1.0);
    EXPECT_EQ(column(health, row, "remap_pending"), 0.0);
    EXPECT_EQ(column(health, row, "remap_failure"), 0.0);
    EXPECT_EQ(column(health, row, "remap_bank_max"), 1536.0);
    EXPECT_EQ(column(health, row, "remap_bank_low"), 0.0);
    EXPECT_EQ(column(health, row, "remap_bank_none"), 0.0);
    EXPECT_EQ(column(health, row, "pcie_replay"), 2.0);
    EXPECT_EQ(column(health, row, "nvlink_links"), 18.0);
    EXPECT_EQ(column(health, row, "nvlink_links_up"), 18.0);
    EXPECT_EQ(column(health, row, "nvlink_down_mask"), 0.0);
    EXPECT_EQ(column(health, row, "nvlink_crc"), 0.0);
    EXPECT_EQ(column(health, row, "fabric_state"), 3.0);
    EXPECT_EQ(column(health, row, "fabric_status"), 0.0);
    EXPECT_EQ(column(health, row, "xid_count"), 0.0);
    EXPECT_TRUE(std::isnan(column(health, row, "xid_last")));
    const auto facts = health.attributes();
    EXPECT_EQ(facts.at("gpu_uuid"), "GPU-00000000-1111-2222-3333-444444444444");
    EXPECT_EQ(facts.at("gpu_name"), "Fake H200");
    EXPECT_FALSE(facts.contains("uuid")) << "'uuid' names the GPU's own table for the analyzer";
    for (const auto& [key, text] : facts) EXPECT_FALSE(key.starts_with(col::not_available_prefix)) << key << ": " << text;
    EXPECT_TRUE(health.take_events().empty());
}

TEST_F(FakeNvmlHealth, PcieCardSaysNotAvailableWithTheReturnCodeNeverZero) {
    auto health = source(1);
    const auto row = health.sample();
    EXPECT_TRUE(std::isnan(column(health, row, "ecc_dbe_volatile")));
    EXPECT_TRUE(std::isnan(column(health, row, "remap_pending")));
    EXPECT_TRUE(std::isnan(column(health, row, "nvlink_links_up")));
    EXPECT_TRUE(std::isnan(column(health, row, "fabric_state")));
    EXPECT_EQ(column(health, row, "pcie_replay"), 2.0);
    const auto facts = health.attributes();
    EXPECT_EQ(facts.at("not_available.ecc_dbe_volatile"), "nvmlDeviceGetTotalEccErrors returned 3 (fake error)");
    EXPECT_EQ(facts.at("not_available.remap_pending"), "nvmlDeviceGetRemappedRows returned 3 (fake error)");
    EXPECT_NE(facts.at("not_available.nvlink_links_up").find("nvmlDeviceGetNvLinkState(link 0) returned 3"), std::string::npos);
    EXPECT_NE(facts.at("not_available.fabric_state").find("NOT_SUPPORTED"), std::string::npos);
    EXPECT_FALSE(facts.contains("not_available.pcie_replay"));
}

TEST_F(FakeNvmlHealth, UnsupportedFunctionIsNotAvailable) {
    const FakeEnv unsupported("SHAKEDOWN_FAKE_NVML_UNSUPPORTED", "nvmlDeviceGetPcieReplayCounter,nvmlDeviceRegisterEvents");
    auto health = source(0);
    const auto row = health.sample();
    EXPECT_TRUE(std::isnan(column(health, row, "pcie_replay")));
    EXPECT_TRUE(std::isnan(column(health, row, "xid_count")));
    EXPECT_EQ(column(health, row, "remap_pending"), 0.0);  // the others still answer
    const auto facts = health.attributes();
    EXPECT_EQ(facts.at("not_available.pcie_replay"), "nvmlDeviceGetPcieReplayCounter returned 3 (fake error)");
    EXPECT_EQ(facts.at("not_available.xid_count"), "nvmlDeviceRegisterEvents(Xid) returned 3 (fake error)");
}

TEST_F(FakeNvmlHealth, OldDriverWithoutTheSymbolsSaysSoAndGoesOn) {
    auto health = source(0, SHAKEDOWN_FAKE_NVML_OLD_PATH);
    for (int i = 0; i < 3; ++i) {
        const auto row = health.sample();
        for (auto name : {col::retired_pages_dbe, col::remap_pending, col::pcie_replay, col::nvlink_crc, col::fabric_state,
                          col::xid_count})
            EXPECT_TRUE(std::isnan(column(health, row, std::string(name)))) << name;
        EXPECT_EQ(column(health, row, "ecc_sbe_volatile"), 3.0);  // older entry points still read
        EXPECT_EQ(column(health, row, "nvlink_links_up"), 18.0);
    }
    const auto facts = health.attributes();
    EXPECT_EQ(facts.at("not_available.pcie_replay"), "nvmlDeviceGetPcieReplayCounter: symbol not in this driver's NVML");
    EXPECT_EQ(facts.at("not_available.remap_failure"), "nvmlDeviceGetRemappedRows: symbol not in this driver's NVML");
    EXPECT_EQ(facts.at("not_available.xid_count"), "nvmlEventSetCreate: symbol not in this driver's NVML");
    EXPECT_EQ(facts.at("not_available.retired_pages_sbe"), "nvmlDeviceGetRetiredPages_v2: symbol not in this driver's NVML");
}

TEST_F(FakeNvmlHealth, XidEventsAreCountedAndRecordedAsEvents) {
    const FakeEnv xid("SHAKEDOWN_FAKE_NVML_XID", "79,13");
    auto health = source(0);
    const auto row = health.sample();
    EXPECT_EQ(column(health, row, "xid_count"), 2.0);
    EXPECT_EQ(column(health, row, "xid_last"), 13.0);
    const auto events = health.take_events();
    ASSERT_EQ(events.size(), 2u);
    EXPECT_EQ(events[0].text, "nvml_xid health_gpu0 GPU-00000000-1111-2222-3333-444444444444 xid=79");
    EXPECT_EQ(events[0].severity, Severity::error);
    EXPECT_EQ(events[1].text, "nvml_xid health_gpu0 GPU-00000000-1111-2222-3333-444444444444 xid=13");
    EXPECT_EQ(column(health, health.sample(), "xid_count"), 2.0);  // delivered once
    EXPECT_TRUE(health.take_events().empty());
}

TEST_F(FakeNvmlHealth, FaultsTheFakeIsToldToShow) {
    const FakeEnv pending("SHAKEDOWN_FAKE_NVML_REMAP_PENDING", "1");
    const FakeEnv replay("SHAKEDOWN_FAKE_NVML_REPLAY_STEP", "5");
    const FakeEnv crc("SHAKEDOWN_FAKE_NVML_CRC_STEP", "4");
    const FakeEnv down("SHAKEDOWN_FAKE_NVML_NVLINK_DOWN", "3");
    const FakeEnv fabric("SHAKEDOWN_FAKE_NVML_FABRIC_STATE", "2");
    auto health = source(0);
    const auto first = health.sample();
    const auto second = health.sample();
    EXPECT_EQ(column(health, second, "remap_pending"), 1.0);
    EXPECT_EQ(column(health, second, "pcie_replay") - column(health, first, "pcie_replay"), 5.0);
    EXPECT_EQ(column(health, second, "nvlink_crc") - column(health, first, "nvlink_crc"), 4.0);
    EXPECT_EQ(column(health, second, "nvlink_links_up"), 17.0);
    EXPECT_EQ(column(health, second, "nvlink_down_mask"), 8.0);
    EXPECT_EQ(column(health, second, "fabric_state"), 2.0);
    EXPECT_TRUE(std::isnan(column(health, second, "fabric_status")));
}

// On a GPU host (bench/gpu/run-on-gpu-host.sh health2): every health value of every GPU printed,
// or why it is not available (the symbol, or NVML's return code). Each column is either read or
// says why, and what is read is plausible; skipped where no NVML loads.
TEST(RealNvml, HealthSourcesReadEveryValueOrSayWhy) {
    std::string why;
    const auto nvml = Nvml::load(Nvml::default_library, &why);
    if (!nvml || nvml->device_count() == 0) GTEST_SKIP() << "no CUDA device (NVML: " << why << ")";
    std::cout << "NVML driver " << nvml->driver_version().value_or("?") << "\n";
    for (unsigned index = 0; index < nvml->device_count(); ++index) {
        GpuHealthTelemetry health(nvml, *nvml->device(index), std::chrono::milliseconds(0));
        const auto row = health.sample();
        const auto facts = health.attributes();
        std::cout << health.device() << " " << facts.at("gpu_uuid") << " " << facts.at("pci_bus_id") << "\n";
        const auto columns = health.columns();
        for (std::size_t i = 2; i < columns.size(); ++i) {
            const auto missing = facts.find(std::string(col::not_available_prefix) + columns[i].name);
            if (std::isfinite(row[i])) {
                std::cout << "  " << columns[i].name << " = " << row[i] << " " << columns[i].unit << "\n";
                EXPECT_GE(row[i], 0.0) << columns[i].name;
            } else if (missing != facts.end()) {
                std::cout << "  " << columns[i].name << ": not available: " << missing->second << "\n";
            } else {
                EXPECT_EQ(columns[i].name, "xid_last") << "NaN without a reason";  // NaN until the first Xid
                std::cout << "  " << columns[i].name << ": no event yet\n";
            }
        }
        for (const Event& event : health.take_events()) std::cout << "  event: " << event.text << "\n";
    }
}

}  // namespace
}  // namespace shakedown
