// PCIe Advanced Error Reporting counters from sysfs, one table "pcie_aer" per node: for the GPUs
// (PCI class 0x03), the network/InfiniBand HCAs (0x02), the NVMe drives (0x010802) and every PCI
// bridge above them, the totals of <root>/<bdf>/aer_dev_{correctable,nonfatal,fatal} (the
// TOTAL_ERR_* line, else the sum of the lines). Columns "<bdf>.aer_correctable", ".aer_nonfatal",
// ".aer_fatal"; read at construction, then once per `read_period` and afresh at the end.
//
// The root is /sys/bus/pci/devices unless SHAKEDOWN_PCI_SYSFS_ROOT names another (tests point it
// at a fake tree). A file that is absent or cannot be read (no AER capability, a device gone) is
// NaN with the attribute "not_available.<column>" saying which file and why, never a zero; the
// attribute "role.<bdf>" says what the device is (gpu, hca, nvme, bridge).
#pragma once

#include "telemetry/kernel_file.hpp"
#include "telemetry/telemetry_source.hpp"
#include "telemetry/read_period.hpp"

#include <array>
#include <chrono>
#include <filesystem>
#include <optional>

namespace shakedown {

inline constexpr const char* default_pci_sysfs_root = "/sys/bus/pci/devices";
inline constexpr const char* pci_sysfs_root_variable = "SHAKEDOWN_PCI_SYSFS_ROOT";
inline constexpr const char* pcie_aer_table = "pcie_aer";

class PcieAerTelemetry : public TelemetrySource {
public:
    explicit PcieAerTelemetry(const std::filesystem::path& root,
                              std::chrono::steady_clock::duration read_period = std::chrono::seconds(1));

    std::string device() const override { return pcie_aer_table; }
    std::vector<SampleTable::Column> columns() const override;  // t, counters_t, then 3 per device
    std::vector<double> sample() override;
    std::vector<double> final_sample() override;
    std::map<std::string, std::string> attributes() const override;

    std::size_t device_count() const { return roles_.size(); }

private:
    struct Counter {
        std::string column;
        std::filesystem::path path;
        KernelFile file;
    };
    void read_all(double t);

    std::vector<Counter> counters_;
    std::map<std::string, std::string> roles_;        // bdf -> role
    std::map<std::string, std::string> unavailable_;  // column -> why
    ReadPeriod reads_;
    std::vector<double> reading_;  // counters_t, then the counters
    std::array<char, 2048> buffer_{};
};

// The source when the root holds at least one device of interest, else nullptr (no cost).
std::unique_ptr<TelemetrySource> pcie_aer_source(const std::filesystem::path& root);
// SHAKEDOWN_PCI_SYSFS_ROOT, else /sys/bus/pci/devices.
std::filesystem::path pci_sysfs_root();

// The total of an aer_dev_* file's text: its TOTAL_ERR_* line, else the sum of its lines' numbers.
std::optional<double> aer_total(std::string_view text);

}  // namespace shakedown
