#include "core/clock.hpp"
#include "telemetry/host_telemetry.hpp"
#include "telemetry_test_support.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

namespace shakedown {
namespace {

namespace fs = std::filesystem;

TEST(HostTelemetry, SamplesThisMachine) {
    HostTelemetry host;
    EXPECT_EQ(host.device(), "host");
    const auto row = host.sample();
    ASSERT_EQ(row.size(), host.columns().size());
    EXPECT_NEAR(row[0], now_utc(), 5.0);
    EXPECT_GE(column(host, row, "loadavg_1m"), 0.0);
    EXPECT_GT(column(host, row, "mem_available_bytes"), 64.0 * 1024 * 1024);
    // cpufreq and thermal zones are absent in many VMs: then NaN, never a made-up number.
    const double mhz = column(host, row, "cpu_mhz_mean");
    if (host.cpufreq_files() == 0) {
        EXPECT_TRUE(std::isnan(mhz));
    } else {
        EXPECT_GT(mhz, 100.0);
    }
    if (host.thermal_zones() == 0) {
        EXPECT_TRUE(std::isnan(column(host, row, "max_thermal_c")));
    }
}

class HostTelemetryFakeTree : public ::testing::Test {
protected:
    void SetUp() override {
        root_ = fs::temp_directory_path() / ("shakedown_host_telemetry_" + std::to_string(::getpid()));
        fs::remove_all(root_);
        write("proc/loadavg", "1.25 0.50 0.25 2/345 6789\n");
        write("proc/meminfo", "MemTotal: 2048 kB\nMemAvailable:   1024 kB\n");
        write("sys/devices/system/cpu/cpu0/cpufreq/scaling_cur_freq", "2000000\n");
        write("sys/devices/system/cpu/cpu1/cpufreq/scaling_cur_freq", "3000000\n");
        fs::create_directories(root_ / "sys/devices/system/cpu/cpu2");  // no cpufreq: skipped
        fs::create_directories(root_ / "sys/devices/system/cpu/cpufreq");  // not a CPU
        write("sys/class/thermal/thermal_zone0/temp", "45000\n");
        write("sys/class/thermal/thermal_zone1/temp", "81500\n");
    }
    void TearDown() override { fs::remove_all(root_); }
    void write(const std::string& relative, const std::string& text) {
        fs::create_directories((root_ / relative).parent_path());
        std::ofstream(root_ / relative) << text;
    }
    fs::path root_;
};

TEST_F(HostTelemetryFakeTree, ReadsEveryCounterAndFollowsChanges) {
    HostTelemetry host((root_ / "sys").string(), (root_ / "proc").string());
    EXPECT_EQ(host.cpufreq_files(), 2u);
    EXPECT_EQ(host.thermal_zones(), 2u);
    auto row = host.sample();
    EXPECT_DOUBLE_EQ(column(host, row, "loadavg_1m"), 1.25);
    EXPECT_DOUBLE_EQ(column(host, row, "cpu_mhz_mean"), 2500.0);
    EXPECT_DOUBLE_EQ(column(host, row, "max_thermal_c"), 81.5);
    EXPECT_DOUBLE_EQ(column(host, row, "mem_available_bytes"), 1024.0 * 1024.0);

    write("sys/devices/system/cpu/cpu1/cpufreq/scaling_cur_freq", "1000000\n");
    write("proc/loadavg", "3.00 0.50 0.25 2/345 6789\n");
    row = host.sample();
    EXPECT_DOUBLE_EQ(column(host, row, "cpu_mhz_mean"), 1500.0);
    EXPECT_DOUBLE_EQ(column(host, row, "loadavg_1m"), 3.0);
}

TEST_F(HostTelemetryFakeTree, MissingCountersAreNaN) {
    fs::remove_all(root_ / "sys");
    HostTelemetry host((root_ / "sys").string(), (root_ / "proc").string());
    const auto row = host.sample();
    EXPECT_TRUE(std::isnan(column(host, row, "cpu_mhz_mean")));
    EXPECT_TRUE(std::isnan(column(host, row, "max_thermal_c")));
    EXPECT_TRUE(std::isnan(column(host, row, "package_energy_j")));  // no RAPL: no energy, never 0
    EXPECT_DOUBLE_EQ(column(host, row, "loadavg_1m"), 1.25);
}

// RAPL is mocked: no machine here exposes it (this VM has no powercap, the GPU hosts are VMs too).
// Two packages summed, their subzones (cores, DRAM) not counted again, a wrap undone, and a
// package whose counter cannot be read (root-only since 2020) left out.
TEST_F(HostTelemetryFakeTree, MockedRaplPackagesGiveOneRisingEnergyCounter) {
    write("sys/class/powercap/intel-rapl:0/energy_uj", "1000000\n");
    write("sys/class/powercap/intel-rapl:0/max_energy_range_uj", "262143328850\n");
    write("sys/class/powercap/intel-rapl:0:0/energy_uj", "500000\n");  // cores: part of package 0
    write("sys/class/powercap/intel-rapl:0:0/max_energy_range_uj", "262143328850\n");
    write("sys/class/powercap/intel-rapl:1/energy_uj", "262143000000\n");  // just below its wrap
    write("sys/class/powercap/intel-rapl:1/max_energy_range_uj", "262143328850\n");
    write("sys/class/powercap/intel-rapl:2/energy_uj", "5\n");  // no range: unusable, left out
    HostTelemetry host((root_ / "sys").string(), (root_ / "proc").string());
    EXPECT_EQ(host.rapl_packages(), 2u);
    EXPECT_DOUBLE_EQ(column(host, host.sample(), "package_energy_j"), 0.0);  // the first reading
    write("sys/class/powercap/intel-rapl:0/energy_uj", "301000000\n");       // +300 J
    write("sys/class/powercap/intel-rapl:0:0/energy_uj", "9000000000\n");    // ignored
    write("sys/class/powercap/intel-rapl:1/energy_uj", "171150\n");          // wrapped: +328.85 J + 0.17115 J
    EXPECT_NEAR(column(host, host.sample(), "package_energy_j"), 300.0 + 0.32885 + 0.17115, 1e-9);
    write("sys/class/powercap/intel-rapl:1/energy_uj", "unreadable\n");  // a reading lost: NaN, no step
    EXPECT_TRUE(std::isnan(column(host, host.sample(), "package_energy_j")));
}

}  // namespace
}  // namespace shakedown
