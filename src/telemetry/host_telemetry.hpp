// Host state over time: 1-minute load, mean CPU clock, hottest thermal zone, available memory, and
// the CPU packages' energy where RAPL is readable (/sys/class/powercap/intel-rapl:N/energy_uj).
// Files are opened once; unreadable ones (no cpufreq in a VM, no thermal zones, no RAPL, or RAPL
// readable by root only) give NaN.
#pragma once

#include "telemetry/kernel_file.hpp"
#include "telemetry/telemetry_source.hpp"

#include <array>
#include <optional>
#include <string>
#include <vector>

namespace shakedown {

class HostTelemetry : public TelemetrySource {
public:
    // `sys_root`/`proc_root` let tests point at a fake tree; production uses the real ones.
    explicit HostTelemetry(const std::string& sys_root = "/sys", const std::string& proc_root = "/proc");

    std::string device() const override { return "host"; }
    std::vector<SampleTable::Column> columns() const override;
    std::vector<double> sample() override;

    std::size_t cpufreq_files() const { return cpufreq_.size(); }
    std::size_t thermal_zones() const { return thermal_zones_.size(); }
    std::size_t rapl_packages() const { return packages_.size(); }

private:
    // One package zone's counter: microjoules that wrap at max_energy_range_uj.
    struct RaplPackage {
        KernelFile energy_uj;
        double range_uj = 0.0;
        std::optional<double> last_uj;
    };

    double mean_cpu_mhz();
    double max_thermal_c();
    double package_energy_j();

    KernelFile loadavg_;
    KernelFile meminfo_;
    std::vector<KernelFile> cpufreq_;        // scaling_cur_freq per CPU, kHz
    std::vector<KernelFile> thermal_zones_;  // thermal_zone*/temp, millidegrees C
    std::vector<RaplPackage> packages_;      // intel-rapl:N (packages; not their core/dram subzones)
    double package_joules_ = 0.0;            // summed since the first reading
    std::array<char, 8192> buffer_{};        // meminfo is ~1.5 KiB; reused for every read
};

}  // namespace shakedown
