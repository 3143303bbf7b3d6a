// NVMe drives' own health, one table "nvme_health" per node (telemetry/nvme_health_columns.hpp):
// for each controller under /sys/class/nvme (SHAKEDOWN_NVME_SYSFS_ROOT for tests), its SMART /
// Health Information log page read through an NvmeLogReader at construction, then once per
// `read_period` and afresh at the end. The real reader sends the Get Log Page admin command through
// the controller's character device (/dev/nvme0, root or the device's group); a controller whose
// log cannot be read has NaN columns and "not_available.<controller>" saying why, never zeros.
#pragma once

#include "telemetry/telemetry_source.hpp"
#include "telemetry/read_period.hpp"

#include <array>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace shakedown {

inline constexpr const char* default_nvme_sysfs_root = "/sys/class/nvme";
inline constexpr const char* nvme_sysfs_root_variable = "SHAKEDOWN_NVME_SYSFS_ROOT";
inline constexpr std::size_t nvme_smart_log_bytes = 512;

using NvmeSmartLogPage = std::array<std::uint8_t, nvme_smart_log_bytes>;

// The narrow interface to the drive (tests give a fake: no NVMe drive on the CI machine).
class NvmeLogReader {
public:
    struct Reading {
        std::optional<NvmeSmartLogPage> page;
        std::string why;  // when no page: what stopped it
    };
    virtual ~NvmeLogReader() = default;
    virtual Reading read_smart_log(const std::string& controller) = 0;  // "nvme0"
};

// The admin command through /dev/<controller> (the controller-wide log, namespace id all ones).
std::unique_ptr<NvmeLogReader> device_nvme_log_reader();

// The fields the table records, in nvme_health_columns::fields' order.
std::array<double, 7> smart_log_fields(std::span<const std::uint8_t, nvme_smart_log_bytes> page);

class NvmeHealthTelemetry : public TelemetrySource {
public:
    NvmeHealthTelemetry(const std::filesystem::path& sysfs_root, std::unique_ptr<NvmeLogReader> reader,
                        std::chrono::steady_clock::duration read_period = std::chrono::seconds(10));

    std::string device() const override;
    std::vector<SampleTable::Column> columns() const override;  // t, log_t, then the fields per controller
    std::vector<double> sample() override;
    std::vector<double> final_sample() override;
    std::map<std::string, std::string> attributes() const override;

    std::size_t controller_count() const { return controllers_.size(); }

private:
    void read_all(double t);

    std::unique_ptr<NvmeLogReader> reader_;
    std::vector<std::string> controllers_;
    std::map<std::string, std::string> facts_;
    ReadPeriod reads_;
    std::vector<double> reading_;  // log_t, then the fields
};

// The source when the root lists at least one controller, else nullptr (no cost).
std::unique_ptr<TelemetrySource> nvme_health_source(const std::filesystem::path& sysfs_root,
                                                    std::unique_ptr<NvmeLogReader> reader);
// SHAKEDOWN_NVME_SYSFS_ROOT, else /sys/class/nvme.
std::filesystem::path nvme_sysfs_root();

}  // namespace shakedown
