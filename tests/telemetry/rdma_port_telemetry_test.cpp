// RdmaPortTelemetry on a fake sysfs tree in a temp folder: this machine has no RDMA device, so
// the tree mocks what mlx5 exposes under /sys/class/infiniband (counters, hw_counters, state).
#include "core/clock.hpp"
#include "telemetry/rdma_pkeys.hpp"
#include "telemetry/rdma_port_names.hpp"
#include "telemetry/rdma_port_telemetry.hpp"
#include "telemetry/sampler.hpp"
#include "telemetry_test_support.hpp"

#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <future>
#include <thread>

namespace shakedown {
namespace {

namespace fs = std::filesystem;

bool has_column(const TelemetrySource& source, const std::string& name) {
    for (const auto& column : source.columns())
        if (column.name == name) return true;
    return false;
}

class RdmaPortTelemetryFakeSysfs : public ::testing::Test {
protected:
    void SetUp() override {
        root_ = fs::temp_directory_path() / ("shakedown_fake_infiniband_" + std::to_string(::getpid()));
        fs::remove_all(root_);
        // mlx5_0: an InfiniBand HCA with one port; mlx5_1: RoCE with two ports, no hw_counters.
        write("mlx5_0/ports/1/state", "4: ACTIVE\n");
        write("mlx5_0/ports/1/phys_state", "5: LinkUp\n");
        write("mlx5_0/ports/1/rate", "200 Gb/sec (4X HDR)\n");
        write("mlx5_0/ports/1/link_layer", "InfiniBand\n");
        write("mlx5_0/ports/1/counters/symbol_error", "7\n");
        write("mlx5_0/ports/1/counters/link_downed", "0\n");
        write("mlx5_0/ports/1/counters/port_rcv_errors", "2\n");
        write("mlx5_0/ports/1/counters/port_xmit_data", "123456789\n");
        write("mlx5_0/ports/1/hw_counters/out_of_buffer", "0\n");
        for (const char* port : {"1", "2"}) {
            write(fmt_port(port, "state"), "1: DOWN\n");
            write(fmt_port(port, "link_layer"), "Ethernet\n");
            write(fmt_port(port, "counters/symbol_error"), "0\n");
        }
        fs::create_directories(root_ / "mlx5_1/ports/not_a_port");
    }
    void TearDown() override { fs::remove_all(root_); }

    static std::string fmt_port(const std::string& port, const std::string& file) { return "mlx5_1/ports/" + port + "/" + file; }
    void write(const std::string& relative, const std::string& text) {
        fs::create_directories((root_ / relative).parent_path());
        std::ofstream(root_ / relative) << text;  // truncates in place: an open KernelFile sees it
    }

    fs::path root_;
};

TEST_F(RdmaPortTelemetryFakeSysfs, OneTablePerPortNamedAfterDeviceAndPort) {
    const auto sources = rdma_port_sources(root_);
    ASSERT_EQ(sources.size(), 3u);
    EXPECT_EQ(sources[0]->device(), "mlx5_0_port1");
    EXPECT_EQ(sources[1]->device(), "mlx5_1_port1");
    EXPECT_EQ(sources[2]->device(), "mlx5_1_port2");
    EXPECT_EQ(sources[0]->attributes().at("link_layer"), "InfiniBand");
    EXPECT_EQ(sources[2]->attributes().at("link_layer"), "Ethernet");
    EXPECT_EQ(sources[2]->attributes().at("port"), "2");
}

TEST_F(RdmaPortTelemetryFakeSysfs, ReadsStateRateAndCounters) {
    RdmaPortTelemetry port("mlx5_0", 1, root_ / "mlx5_0/ports/1");
    const auto columns = port.columns();
    const auto row = port.sample();
    ASSERT_EQ(row.size(), columns.size());
    EXPECT_EQ(columns[0].name, "t");
    EXPECT_NEAR(row[0], now_utc(), 5.0);
    EXPECT_DOUBLE_EQ(column(port, row, std::string(rdma_counters_time_column)), row[0]);
    EXPECT_DOUBLE_EQ(column(port, row, "state"), 4.0);
    EXPECT_DOUBLE_EQ(column(port, row, "phys_state"), 5.0);
    EXPECT_DOUBLE_EQ(column(port, row, "rate_gbps"), 200.0);
    // Error counters carry the prefix (the analyzer's "error" match), traffic counters do not.
    EXPECT_DOUBLE_EQ(column(port, row, "error_symbol_error"), 7.0);
    EXPECT_DOUBLE_EQ(column(port, row, "error_port_rcv_errors"), 2.0);
    EXPECT_DOUBLE_EQ(column(port, row, "error_link_downed"), 0.0);
    EXPECT_DOUBLE_EQ(column(port, row, "error_out_of_buffer"), 0.0);
    EXPECT_DOUBLE_EQ(column(port, row, "port_xmit_data"), 123456789.0);
    EXPECT_EQ(port.counter_count(), 5u);
    EXPECT_EQ(rdma_counter_of_column("error_symbol_error"), "symbol_error");
}

TEST_F(RdmaPortTelemetryFakeSysfs, MissingCounterFilesGetNoColumnAndNoFailure) {
    // The RoCE port has only symbol_error and no state/phys_state/rate/hw_counters files.
    RdmaPortTelemetry port("mlx5_1", 2, root_ / "mlx5_1/ports/2");
    EXPECT_EQ(port.counter_count(), 1u);
    EXPECT_FALSE(has_column(port, "error_port_rcv_errors"));
    EXPECT_FALSE(has_column(port, "error_out_of_buffer"));
    const auto row = port.sample();
    ASSERT_EQ(row.size(), port.columns().size());
    EXPECT_DOUBLE_EQ(column(port, row, "state"), 1.0);
    EXPECT_TRUE(std::isnan(column(port, row, "phys_state")));  // file absent: NaN, never a made-up number
    EXPECT_TRUE(std::isnan(column(port, row, "rate_gbps")));
    EXPECT_DOUBLE_EQ(column(port, row, "error_symbol_error"), 0.0);
}

// A FIFO where sysfs has an attribute (a sysfs root set to the wrong folder): opening it waited for
// a writer, and the rank hung before its first test, judged a hardware fault and drained. Now it is
// a file the source does not have: no column, and the sample comes at once.
TEST_F(RdmaPortTelemetryFakeSysfs, AFifoInPlaceOfACounterIsAbsentNotAHang) {
    const fs::path port_dir = root_ / "mlx5_0/ports/1";
    fs::remove(port_dir / "counters/link_downed");
    fs::remove(port_dir / "state");
    ASSERT_EQ(::mkfifo((port_dir / "counters/link_downed").c_str(), 0600), 0);
    ASSERT_EQ(::mkfifo((port_dir / "state").c_str(), 0600), 0);
    auto made = std::async(std::launch::async, [&] {
        RdmaPortTelemetry port("mlx5_0", 1, port_dir);
        const auto row = port.sample();
        return std::make_pair(port.counter_count(), std::isnan(column(port, row, "state")));
    });
    ASSERT_EQ(made.wait_for(std::chrono::seconds(10)), std::future_status::ready) << "opening a FIFO blocked";
    const auto [counters, state_unknown] = made.get();
    EXPECT_EQ(counters, 4u);  // link_downed is not among them
    EXPECT_TRUE(state_unknown);
}

TEST_F(RdmaPortTelemetryFakeSysfs, CounterChangedBetweenSamplesShowsInTheTable) {
    std::vector<std::unique_ptr<TelemetrySource>> sources;
    sources.push_back(std::make_unique<RdmaPortTelemetry>("mlx5_0", 1, root_ / "mlx5_0/ports/1", std::chrono::milliseconds(0)));
    TelemetrySampler sampler(200.0, std::move(sources));
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    write("mlx5_0/ports/1/counters/symbol_error", "19\n");
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    const auto tables = sampler.drain();
    const SampleTable& table = tables.at("mlx5_0_port1");
    ASSERT_GE(table.size(), 4u);
    const auto symbol_errors = table.column("error_symbol_error");
    // NaN is allowed for a read that raced the rewrite; the first and last readings are not.
    EXPECT_DOUBLE_EQ(symbol_errors.front(), 7.0);
    EXPECT_DOUBLE_EQ(symbol_errors.back(), 19.0);
}

TEST_F(RdmaPortTelemetryFakeSysfs, ReadsSysfsAtMostOncePerReadPeriod) {
    RdmaPortTelemetry port("mlx5_0", 1, root_ / "mlx5_0/ports/1", std::chrono::hours(1));
    const auto first = port.sample();
    write("mlx5_0/ports/1/counters/symbol_error", "8\n");
    const auto second = port.sample();
    // The second row repeats the first reading, and says so through counters_t.
    EXPECT_DOUBLE_EQ(column(port, second, "error_symbol_error"), 7.0);
    EXPECT_DOUBLE_EQ(column(port, second, std::string(rdma_counters_time_column)), first[0]);
    EXPECT_GE(second[0], first[0]);
}

// An error in the run's last second must not hide behind the read period: the reading taken
// as sampling stops goes to sysfs whatever the period.
TEST_F(RdmaPortTelemetryFakeSysfs, FinalSampleReadsSysfsAfresh) {
    RdmaPortTelemetry port("mlx5_0", 1, root_ / "mlx5_0/ports/1", std::chrono::hours(1));
    (void)port.sample();
    write("mlx5_0/ports/1/counters/symbol_error", "9\n");
    EXPECT_DOUBLE_EQ(column(port, port.sample(), "error_symbol_error"), 7.0);  // within the period: cached
    EXPECT_DOUBLE_EQ(column(port, port.final_sample(), "error_symbol_error"), 9.0);
}

// PKeys: the valid entries sorted (membership bit kept), "none" for a table of empty entries,
// and "not available" naming the file for anything unreadable: never an empty set.
TEST_F(RdmaPortTelemetryFakeSysfs, PkeyTableAsReadOrNotAvailable) {
    write("mlx5_0/ports/1/pkeys/0", "0xffff\n");
    write("mlx5_0/ports/1/pkeys/1", "0x0000\n");
    write("mlx5_0/ports/1/pkeys/2", "0x8001\n");
    write("mlx5_0/ports/1/pkeys/10", "0x7fff\n");
    write("mlx5_0/ports/1/pkeys/12", "0x8000\n");  // membership bit alone: not a PKey
    const PkeyTable table = read_pkey_table(root_ / "mlx5_0/ports/1");
    ASSERT_FALSE(table.not_available) << *table.not_available;
    EXPECT_EQ(format_pkeys(table.valid), "0x7fff,0x8001,0xffff");
    const auto sources = rdma_port_sources(root_);
    EXPECT_EQ(sources.front()->attributes().at(std::string(rdma_pkeys_attribute)), "0x7fff,0x8001,0xffff");

    write("mlx5_1/ports/1/pkeys/0", "0x0000\n");
    EXPECT_EQ(format_pkeys(read_pkey_table(root_ / "mlx5_1/ports/1").valid), "none");
    EXPECT_FALSE(read_pkey_table(root_ / "mlx5_1/ports/1").not_available);

    const auto absent = read_pkey_table(root_ / "mlx5_1/ports/2");  // no pkeys folder
    ASSERT_TRUE(absent.not_available);
    EXPECT_NE(absent.not_available->find("pkeys: absent"), std::string::npos) << *absent.not_available;
    EXPECT_TRUE(rdma_port_sources(root_).back()->attributes().contains(std::string(rdma_pkeys_not_available_attribute)));
    EXPECT_FALSE(rdma_port_sources(root_).back()->attributes().contains(std::string(rdma_pkeys_attribute)));

    write("mlx5_0/ports/1/pkeys/3", "garbage\n");
    const auto bad = read_pkey_table(root_ / "mlx5_0/ports/1");
    ASSERT_TRUE(bad.not_available);
    EXPECT_NE(bad.not_available->find("pkeys/3: not a PKey ('garbage')"), std::string::npos) << *bad.not_available;
    EXPECT_TRUE(bad.valid.empty());
}

TEST(RdmaPortTelemetryNoSysfs, NoTreeMeansNoSources) {
    EXPECT_TRUE(rdma_port_sources("/nonexistent/sys/class/infiniband").empty());
    // This CI machine has no RDMA device: the real folder gives nothing either (if it exists
    // on a developer's machine, every source must still be a named port table).
    for (const auto& source : rdma_port_sources(default_infiniband_sysfs_root))
        EXPECT_NE(source->device().find("_port"), std::string::npos);
}

TEST(RdmaPortTelemetryNoSysfs, DefaultSourcesWithoutTreeAreHostAndGpusOnly) {
    for (const auto& source : default_telemetry_sources("/nonexistent/sys/class/infiniband"))
        EXPECT_EQ(source->device().find("_port"), std::string::npos) << source->device();
}

}  // namespace
}  // namespace shakedown
