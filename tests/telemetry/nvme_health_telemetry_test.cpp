// NvmeHealthTelemetry with a fake log reader (MockNvmeDrive: no NVMe drive on the CI machine) over a
// fake /sys/class/nvme tree: the SMART log's fields at their byte offsets, a controller whose log
// cannot be read as NaN with the reason (never zero), and no source without a controller. The real
// reader runs where a drive exists (the GPU host): every value or the reason.
#include "telemetry/nvme_health_columns.hpp"
#include "telemetry/nvme_health_telemetry.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>

namespace shakedown {
namespace {

namespace fs = std::filesystem;
namespace col = nvme_health_columns;

// A drive's planted log pages by controller; a controller without one answers as a device the
// process may not open does.
class MockNvmeDrive final : public NvmeLogReader {
public:
    explicit MockNvmeDrive(std::map<std::string, NvmeSmartLogPage> pages) : pages_(std::move(pages)) {}
    Reading read_smart_log(const std::string& controller) override {
        const auto found = pages_.find(controller);
        if (found == pages_.end()) return {std::nullopt, "/dev/" + controller + ": Permission denied"};
        return {found->second, ""};
    }

private:
    std::map<std::string, NvmeSmartLogPage> pages_;
};

// A log page with the fields at the offsets the NVMe base specification gives them.
NvmeSmartLogPage page(std::uint8_t warning, unsigned kelvin, std::uint8_t spare, std::uint8_t threshold, std::uint8_t used,
                      std::uint64_t media_errors, std::uint64_t error_entries) {
    NvmeSmartLogPage p{};
    p[0] = warning;
    p[1] = static_cast<std::uint8_t>(kelvin & 0xff);
    p[2] = static_cast<std::uint8_t>(kelvin >> 8);
    p[3] = spare;
    p[4] = threshold;
    p[5] = used;
    for (int i = 0; i < 8; ++i) {
        p[160 + i] = static_cast<std::uint8_t>(media_errors >> (8 * i));
        p[176 + i] = static_cast<std::uint8_t>(error_entries >> (8 * i));
    }
    return p;
}

class FakeNvmeSysfs {
public:
    FakeNvmeSysfs() : root_(fs::temp_directory_path() / ("shakedown-fake-nvme-" + std::to_string(::getpid()))) {
        fs::remove_all(root_);
        controller("nvme0", "Example NVMe 3.84TB                      ", "S1234");
        controller("nvme1", "Other Drive", "S5678");
        fs::create_directories(root_ / "nvme-subsys0");  // the subsystem entry: not a controller
    }
    ~FakeNvmeSysfs() {
        std::error_code ignored;
        fs::remove_all(root_, ignored);
    }
    const fs::path& root() const { return root_; }

private:
    void controller(const std::string& name, const std::string& model, const std::string& serial) const {
        fs::create_directories(root_ / name);
        std::ofstream(root_ / name / "model") << model << "\n";
        std::ofstream(root_ / name / "serial") << serial << "\n";
        std::ofstream(root_ / name / "firmware_rev") << "FW1\n";
    }
    fs::path root_;
};

double value(const NvmeHealthTelemetry& source, const std::vector<double>& row, const std::string& column) {
    const auto columns = source.columns();
    for (std::size_t i = 0; i < columns.size(); ++i)
        if (columns[i].name == column) return row[i];
    ADD_FAILURE() << "no column " << column;
    return 0;
}

TEST(NvmeHealthWithMockDrive, TheLogsFieldsAreReadAtTheirOffsets) {
    const FakeNvmeSysfs sysfs;
    NvmeHealthTelemetry source(sysfs.root(),
                               std::make_unique<MockNvmeDrive>(std::map<std::string, NvmeSmartLogPage>{
                                   {"nvme0", page(0x04, 313, 97, 10, 12, 3, 41)}}));
    ASSERT_EQ(source.controller_count(), 2u);  // nvme-subsys0 is not one
    EXPECT_EQ(source.device(), "nvme_health");
    const auto columns = source.columns();
    ASSERT_EQ(columns.size(), 2u + 2 * col::fields.size());
    EXPECT_EQ(columns[2].name, "nvme0.critical_warning");
    const auto row = source.sample();
    ASSERT_EQ(row.size(), columns.size());
    EXPECT_EQ(value(source, row, "nvme0.critical_warning"), 4.0);
    EXPECT_EQ(value(source, row, "nvme0.temperature_c"), 40.0);
    EXPECT_EQ(value(source, row, "nvme0.available_spare_pct"), 97.0);
    EXPECT_EQ(value(source, row, "nvme0.available_spare_threshold_pct"), 10.0);
    EXPECT_EQ(value(source, row, "nvme0.percentage_used"), 12.0);
    EXPECT_EQ(value(source, row, "nvme0.media_errors"), 3.0);
    EXPECT_EQ(value(source, row, "nvme0.error_log_entries"), 41.0);
    const auto facts = source.attributes();
    EXPECT_EQ(facts.at("model.nvme0"), "Example NVMe 3.84TB");  // sysfs' padding trimmed
    EXPECT_EQ(facts.at("serial.nvme0"), "S1234");
    EXPECT_EQ(facts.at("firmware.nvme0"), "FW1");
    EXPECT_FALSE(facts.contains("not_available.nvme0"));
    // nvme1's log could not be read: NaN and the reason, never zero.
    for (const auto& field : col::fields) EXPECT_TRUE(std::isnan(value(source, row, "nvme1." + std::string(field.name))));
    EXPECT_EQ(facts.at("not_available.nvme1"), "/dev/nvme1: Permission denied");
}

TEST(NvmeHealthWithMockDrive, CountersBeyondSixtyFourBitsAndNoTemperatureAreNotWrapped) {
    NvmeSmartLogPage p = page(0, 0, 100, 10, 255, 0, 0);
    p[160 + 8] = 1;  // 2^64 media errors
    const auto fields = smart_log_fields(p);
    EXPECT_TRUE(std::isnan(fields[1]));  // temperature 0 K: the drive reports none
    EXPECT_EQ(fields[4], 255.0);         // percentage used saturates at 255, beyond 100 by design
    EXPECT_DOUBLE_EQ(fields[5], 18446744073709551616.0);
}

TEST(NvmeHealthWithMockDrive, NoControllerNoSource) {
    const fs::path empty = fs::temp_directory_path() / ("shakedown-no-nvme-" + std::to_string(::getpid()));
    fs::create_directories(empty);
    EXPECT_EQ(nvme_health_source(empty, std::make_unique<MockNvmeDrive>(std::map<std::string, NvmeSmartLogPage>{})), nullptr);
    EXPECT_EQ(nvme_health_source(empty / "absent", std::make_unique<MockNvmeDrive>(std::map<std::string, NvmeSmartLogPage>{})),
              nullptr);
    fs::remove_all(empty);
}

// The real drives where there are any (the GPU host): every field read, or the reason.
TEST(RealSysfs, NvmeHealthReadsEveryValueOrSaysWhy) {
    auto source = nvme_health_source(nvme_sysfs_root(), device_nvme_log_reader());
    if (!source) GTEST_SKIP() << "no NVMe controller under " << nvme_sysfs_root();
    const auto row = source->sample();
    const auto columns = source->columns();
    const auto facts = source->attributes();
    for (std::size_t i = 2; i < columns.size(); ++i) {
        const std::string controller = columns[i].name.substr(0, columns[i].name.find('.'));
        const bool read = !std::isnan(row[i]) || columns[i].name.ends_with(".temperature_c");
        EXPECT_TRUE(read || facts.contains("not_available." + controller)) << columns[i].name;
        std::cout << columns[i].name << " = " << row[i] << "\n";
    }
    for (const auto& [key, text] : facts) std::cout << key << ": " << text << "\n";
}

}  // namespace
}  // namespace shakedown
