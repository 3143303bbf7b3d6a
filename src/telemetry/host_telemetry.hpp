// Host state over time: 1-minute load, mean CPU clock, hottest thermal zone, available memory.
// Files are opened once; unreadable ones (no cpufreq in a VM, no thermal zones) give NaN.
#pragma once

#include "telemetry/kernel_file.hpp"
#include "telemetry/telemetry_source.hpp"

#include <array>
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

private:
    double mean_cpu_mhz();
    double max_thermal_c();

    KernelFile loadavg_;
    KernelFile meminfo_;
    std::vector<KernelFile> cpufreq_;        // scaling_cur_freq per CPU, kHz
    std::vector<KernelFile> thermal_zones_;  // thermal_zone*/temp, millidegrees C
    std::array<char, 8192> buffer_{};        // meminfo is ~1.5 KiB; reused for every read
};

}  // namespace shakedown
