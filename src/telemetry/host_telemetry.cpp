#include "telemetry/host_telemetry.hpp"
#include "telemetry/telemetry_source.hpp"

#include "telemetry/telemetry_columns.hpp"

#include "core/clock.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <limits>

namespace shakedown {
namespace {


// Entries of `folder` named `prefix` followed by digits ("cpu12", "thermal_zone3"), sorted.
std::vector<std::filesystem::path> numbered_entries(const std::filesystem::path& folder, std::string_view prefix) {
    std::vector<std::filesystem::path> found;
    std::error_code error;
    for (const auto& entry : std::filesystem::directory_iterator(folder, error)) {
        const std::string name = entry.path().filename().string();
        if (name.size() > prefix.size() && name.starts_with(prefix) &&
            std::all_of(name.begin() + static_cast<long>(prefix.size()), name.end(),
                        [](unsigned char c) { return std::isdigit(c) != 0; }))
            found.push_back(entry.path());
    }
    std::sort(found.begin(), found.end());
    return found;
}

// Keeps the files that open and answer a first read.
std::vector<KernelFile> readable_files(const std::vector<std::filesystem::path>& paths) {
    std::vector<KernelFile> files;
    std::array<char, 64> probe{};
    for (const auto& path : paths) {
        KernelFile file(path.string());
        if (file.is_open() && file.read(probe)) files.push_back(std::move(file));
    }
    return files;
}

}  // namespace

HostTelemetry::HostTelemetry(const std::string& sys_root, const std::string& proc_root)
    : loadavg_(proc_root + "/loadavg"), meminfo_(proc_root + "/meminfo") {
    std::vector<std::filesystem::path> freq_paths;
    for (const auto& cpu : numbered_entries(sys_root + "/devices/system/cpu", "cpu"))
        freq_paths.push_back(cpu / "cpufreq" / "scaling_cur_freq");
    cpufreq_ = readable_files(freq_paths);

    std::vector<std::filesystem::path> zone_paths;
    for (const auto& zone : numbered_entries(sys_root + "/class/thermal", "thermal_zone"))
        zone_paths.push_back(zone / "temp");
    thermal_zones_ = readable_files(zone_paths);

    // Package zones only ("intel-rapl:0", not "intel-rapl:0:0"): their subzones (cores, DRAM,
    // uncore) are parts of the package's energy, and summing them would count it twice.
    std::array<char, 64> probe{};
    for (const auto& zone : numbered_entries(sys_root + "/class/powercap", "intel-rapl:")) {
        RaplPackage package{KernelFile((zone / "energy_uj").string()), 0.0, std::nullopt};
        const auto range = KernelFile((zone / "max_energy_range_uj").string()).read_number(probe);
        if (package.energy_uj.is_open() && package.energy_uj.read_number(probe) && range && *range > 0.0) {
            package.range_uj = *range;
            packages_.push_back(std::move(package));
        }
    }
}

std::vector<SampleTable::Column> HostTelemetry::columns() const { return telemetry_columns::host::columns(); }

std::vector<double> HostTelemetry::sample() {
    const double t = now_utc();
    const double load = loadavg_.read_number(buffer_).value_or(not_available);
    const double mhz = mean_cpu_mhz();
    const double celsius = max_thermal_c();
    const auto meminfo = meminfo_.read(buffer_);
    const auto available_kib =
        meminfo ? number_after(*meminfo, "MemAvailable:") : std::optional<double>{};
    return {t, load, mhz, celsius, available_kib ? *available_kib * 1024.0 : not_available, package_energy_j()};
}

double HostTelemetry::package_energy_j() {
    if (packages_.empty()) return not_available;
    for (auto& package : packages_) {
        const auto now_uj = package.energy_uj.read_number(buffer_);
        if (!now_uj) return not_available;  // a reading lost: no figure rather than a step
        if (package.last_uj) {
            // A counter below its last reading wrapped (every few minutes at full power on a
            // large package): what it rose by is the rest of the range plus its new value.
            const double rose = *now_uj >= *package.last_uj ? *now_uj - *package.last_uj
                                                            : package.range_uj - *package.last_uj + *now_uj;
            package_joules_ += rose * 1e-6;
        }
        package.last_uj = now_uj;
    }
    return package_joules_;
}

double HostTelemetry::mean_cpu_mhz() {
    double sum_khz = 0.0;
    int counted = 0;
    for (const auto& file : cpufreq_) {
        if (auto khz = file.read_number(buffer_)) {
            sum_khz += *khz;
            ++counted;
        }
    }
    return counted > 0 ? sum_khz / counted / 1000.0 : not_available;
}

double HostTelemetry::max_thermal_c() {
    double hottest = not_available;
    for (const auto& zone : thermal_zones_) {
        if (auto millidegrees = zone.read_number(buffer_)) {
            const double celsius = *millidegrees / 1000.0;
            if (std::isnan(hottest) || celsius > hottest) hottest = celsius;
        }
    }
    return hottest;
}

}  // namespace shakedown
