// PcieAerTelemetry on a fake sysfs tree: devices chosen by PCI class with their upstream bridges,
// the TOTAL_ERR_* lines read, and an unreadable or absent file as NaN with the reason, never zero.
#include "telemetry/pcie_aer_telemetry.hpp"
#include "telemetry_test_support.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>

namespace shakedown {
namespace {

namespace fs = std::filesystem;

std::string aer_text(const char* kind, int total) {
    // The kernel's layout (drivers/pci/pcie/aer.c): one line per error bit, then the total.
    return fmt::format("RxErr 0\nBadTLP {}\nBadDLLP 0\nTOTAL_ERR_{} {}\n", total, kind, total);
}

// /sys/devices/pci0000:00/<bridge>/<gpu> and so on, with /sys/bus/pci/devices/<bdf> links to them.
class FakeSysfsPci {
public:
    FakeSysfsPci() : top_(fs::temp_directory_path() / ("shakedown-fake-pci-" + std::to_string(::getpid()))) {
        fs::remove_all(top_);
        device("pci0000:00/0000:00:01.0", "0x060400", true);                  // root port above the GPU
        device("pci0000:00/0000:00:01.0/0000:19:00.0", "0x030200", true);     // the GPU
        device("pci0000:00/0000:00:02.0", "0x060400", true);
        device("pci0000:00/0000:00:02.0/0000:3b:00.0", "0x020700", true);     // an InfiniBand HCA
        device("pci0000:00/0000:00:03.0/0000:5e:00.0", "0x010802", false);    // NVMe: aer_dev_fatal unreadable
        fs::create_directories(top_ / "devices/pci0000:00/0000:00:03.0/0000:5e:00.0/aer_dev_fatal");  // a folder: not a file to read
        device("pci0000:00/0000:00:14.0", "0x0c0330", true);                  // USB: not of interest
    }
    ~FakeSysfsPci() {
        std::error_code ignored;
        fs::remove_all(top_, ignored);
    }
    fs::path root() const { return top_ / "bus/pci/devices"; }
    void set(const std::string& path, const char* kind, const char* upper, int total) const {
        std::ofstream(top_ / "devices" / path / fmt::format("aer_dev_{}", kind)) << aer_text(upper, total);
    }

private:
    void device(const std::string& path, const char* pci_class, bool aer) {
        const fs::path dir = top_ / "devices" / path;
        fs::create_directories(dir);
        std::ofstream(dir / "class") << pci_class << "\n";
        if (aer) {
            std::ofstream(dir / "aer_dev_correctable") << aer_text("COR", 0);
            std::ofstream(dir / "aer_dev_nonfatal") << aer_text("NONFATAL", 0);
            std::ofstream(dir / "aer_dev_fatal") << aer_text("FATAL", 0);
        }
        fs::create_directories(root());
        fs::create_directory_symlink(dir, root() / dir.filename());
    }
    fs::path top_;
};

TEST(PcieAerFakeSysfs, DevicesOfInterestAndTheirBridgesAreRead) {
    const FakeSysfsPci sysfs;
    sysfs.set("pci0000:00/0000:00:01.0/0000:19:00.0", "correctable", "COR", 17);
    PcieAerTelemetry aer(sysfs.root(), std::chrono::milliseconds(0));
    const auto facts = aer.attributes();
    EXPECT_EQ(facts.at("role.0000:19:00.0"), "gpu");
    EXPECT_EQ(facts.at("role.0000:3b:00.0"), "hca");
    EXPECT_EQ(facts.at("role.0000:5e:00.0"), "nvme");
    EXPECT_EQ(facts.at("role.0000:00:01.0"), "bridge");
    EXPECT_EQ(facts.at("role.0000:00:02.0"), "bridge");
    EXPECT_FALSE(facts.contains("role.0000:00:14.0"));  // USB
    auto row = aer.sample();
    EXPECT_EQ(column(aer, row, "0000:19:00.0.aer_correctable"), 17.0);
    EXPECT_EQ(column(aer, row, "0000:19:00.0.aer_fatal"), 0.0);
    EXPECT_EQ(column(aer, row, "0000:00:01.0.aer_nonfatal"), 0.0);
    sysfs.set("pci0000:00/0000:00:02.0/0000:3b:00.0", "fatal", "FATAL", 2);
    row = aer.sample();
    EXPECT_EQ(column(aer, row, "0000:3b:00.0.aer_fatal"), 2.0);
}

TEST(PcieAerFakeSysfs, UnreadableOrAbsentFileIsNotAvailableNeverZero) {
    const FakeSysfsPci sysfs;
    PcieAerTelemetry aer(sysfs.root(), std::chrono::milliseconds(0));
    const auto row = aer.sample();
    EXPECT_TRUE(std::isnan(column(aer, row, "0000:5e:00.0.aer_fatal")));
    EXPECT_TRUE(std::isnan(column(aer, row, "0000:5e:00.0.aer_correctable")));
    const auto facts = aer.attributes();
    EXPECT_NE(facts.at("not_available.0000:5e:00.0.aer_fatal").find("not a regular file"), std::string::npos)
        << facts.at("not_available.0000:5e:00.0.aer_fatal");
    EXPECT_NE(facts.at("not_available.0000:5e:00.0.aer_correctable").find("no such file"), std::string::npos);
    // The NVMe's bridge has no AER files at all: not available too.
    EXPECT_TRUE(std::isnan(column(aer, row, "0000:00:03.0.aer_fatal")));
    EXPECT_FALSE(facts.contains("not_available.0000:19:00.0.aer_fatal"));
}

TEST(PcieAerFakeSysfs, NoDeviceOfInterestNoSource) {
    EXPECT_EQ(pcie_aer_source("/nonexistent/bus/pci/devices"), nullptr);
}

TEST(PcieAer, TotalLineElseSum) {
    EXPECT_EQ(aer_total("RxErr 1\nBadTLP 2\nTOTAL_ERR_COR 7\n"), 7.0);
    EXPECT_EQ(aer_total("RxErr 1\nBadTLP 2\n"), 3.0);
    EXPECT_FALSE(aer_total("garbage\n"));
    EXPECT_FALSE(aer_total(""));
}

// This machine's own PCI tree (on the GPU host: bench/gpu/run-on-gpu-host.sh health2): every AER
// total printed, or why it is not available; each column is read or says why.
TEST(RealSysfs, PcieAerReadsEveryValueOrSaysWhy) {
    const auto source = pcie_aer_source(default_pci_sysfs_root);
    if (!source) GTEST_SKIP() << "no GPU, HCA or NVMe under " << default_pci_sysfs_root;
    const auto row = source->sample();
    const auto facts = source->attributes();
    const auto columns = source->columns();
    for (const auto& [key, value] : facts)
        if (key.starts_with("role.")) std::cout << key.substr(5) << " " << value << "\n";
    for (std::size_t i = 2; i < columns.size(); ++i) {
        if (std::isfinite(row[i])) {
            std::cout << "  " << columns[i].name << " = " << row[i] << "\n";
        } else {
            ASSERT_TRUE(facts.contains("not_available." + columns[i].name)) << columns[i].name << " NaN without a reason";
            std::cout << "  " << columns[i].name << ": not available: " << facts.at("not_available." + columns[i].name) << "\n";
        }
    }
}

}  // namespace
}  // namespace shakedown
