// Endpoint choice and bad input (with FakeVerbs), the inventory report with a planted
// counter change, the sysfs readers on a made-up tree, and latency statistics.
#include "fake_verbs.hpp"

#include "core/errors.hpp"
#include "ib/inventory/inventory_report.hpp"
#include "ib/inventory/sysfs_rdma.hpp"
#include "ib/specs.hpp"
#include "ib/ucx/ucx_transports.hpp"
#include "ib/verbs/endpoint_selection.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <numeric>

namespace shakedown::ib::testing {
namespace {

std::string input_error(const std::function<void()>& body) {
    try {
        body();
    } catch (const InputError& error) {
        return error.what();
    }
    return "(no InputError)";
}

FakeVerbs mixed_node() {
    return FakeVerbs({fake_infiniband_device("mlx5_0", 0, 1), fake_infiniband_device("mlx5_1", 1, 2),
                      fake_roce_device("mlx5_2", 1)});
}

TEST(FakeVerbsEndpoint, UnknownDeviceNamesTheValidChoices) {
    const auto fake = mixed_node();
    EXPECT_EQ(input_error([&] { resolve_endpoint(fake, {"mlx5_9", 0, -1}, -1); }),
              "RDMA device 'mlx5_9' does not exist on this node; valid choices: mlx5_0, mlx5_1, mlx5_2");
}

TEST(FakeVerbsEndpoint, PortOutOfRangeNamesTheValidPorts) {
    const auto fake = mixed_node();
    EXPECT_EQ(input_error([&] { resolve_endpoint(fake, {"mlx5_1", 2, -1}, -1); }),
              "port 2 is out of range for RDMA device 'mlx5_1': valid ports are 1..1");
}

TEST(FakeVerbsEndpoint, AbsentGidIndexNamesThePopulatedOnes) {
    const auto fake = mixed_node();
    EXPECT_EQ(input_error([&] { resolve_endpoint(fake, {"mlx5_2", 1, 5}, -1); }),
              "GID index 5 is not populated on RDMA device 'mlx5_2' port 1; valid indices: 0 (IB/RoCE v1), 1 (RoCE v2)");
}

TEST(FakeVerbsEndpoint, DeclaredRangesNameTheValidValuesWithoutADevice) {
    const auto specs = endpoint_parameters();
    const auto spec_of = [&](const std::string& name) {
        return *std::find_if(specs.begin(), specs.end(), [&](const ParamSpec& spec) { return spec.name == name; });
    };
    EXPECT_EQ(spec_of("port").violation(std::int64_t{300}), "must be between 1 and 255, got 300");
    EXPECT_EQ(spec_of("gid_index").violation(std::int64_t{-4}), "must be between 0 and 65535, got -4");
    EXPECT_EQ(spec_of("port").violation(automatic), std::nullopt);
    const EndpointRequest request = endpoint_request(TestParams(specs, {}));
    EXPECT_EQ(request.device, "");
    EXPECT_EQ(request.port, 0);
    EXPECT_EQ(request.gid_index, -1);
}

TEST(FakeVerbsEndpoint, DefaultIsTheActiveHcaNearestByNuma) {
    auto devices = std::vector{fake_infiniband_device("mlx5_0", 0, 1), fake_infiniband_device("mlx5_1", 1, 2),
                               fake_infiniband_device("mlx5_2", 1, 3)};
    devices[1].ports[0].info.state = "DOWN";
    const FakeVerbs fake(devices);
    const auto near = resolve_endpoint(fake, {}, 1);
    EXPECT_EQ(near.device, "mlx5_2");  // mlx5_1 is on node 1 too, but its port is down
    EXPECT_EQ(near.reason, "nearest to NUMA node 1");
    EXPECT_FALSE(near.gid_index);  // InfiniBand: LID routing
    const auto far = resolve_endpoint(fake, {}, 3);
    EXPECT_EQ(far.device, "mlx5_0");
    EXPECT_EQ(far.reason, "first with an ACTIVE port (none on NUMA node 3)");
    const auto given = resolve_endpoint(fake, {"mlx5_1", 0, 0}, 0);
    EXPECT_EQ(given.reason, "given");
    EXPECT_EQ(given.port_info.state, "DOWN");
    EXPECT_EQ(given.gid_index, 0);
}

TEST(FakeVerbsInventory, PortsAreDescribedAndCheckedAgainstExpectations) {
    auto devices = std::vector{fake_infiniband_device("mlx5_0", 0, 1), fake_infiniband_device("mlx5_1", 1, 2)};
    devices[1].ports[0].info.width_code = 1;  // trained at 1x instead of 4x: 50 Gb/s
    devices[1].ports[0].info.active_mtu_bytes = 2048;
    const FakeVerbs fake(devices);
    const auto result = report_hca_inventory(fake, {200.0, 4096, "ACTIVE"}, [] {});
    EXPECT_EQ(result.status, Status::fail);
    EXPECT_NE(result.reason.find("mlx5_1/1: rate 50 Gb/s, expected 200"), std::string::npos) << result.reason;
    EXPECT_NE(result.reason.find("mlx5_1/1: active MTU 2048 B, expected 4096 (port max 4096)"), std::string::npos)
        << result.reason;
    EXPECT_EQ(result.parameters.at("implementation"), "fake (in-process)");
    EXPECT_EQ(result.parameters.at("port mlx5_0/1"),
              "ACTIVE LinkUp, HDR 4x = 200 Gb/s, MTU 4096/4096 B, InfiniBand, LID 1, fw 20.99.1000, NUMA 0, PCI "
              "0000:18:00.0, GIDs [0=fe80:0000:0000:0000:0002:c903:00a1:b201 (IB/RoCE v1)]");
    const auto rate = std::find_if(result.metrics.begin(), result.metrics.end(),
                                   [](const Metric& m) { return m.name == "ib_inventory.min_port_rate_gbps"; });
    ASSERT_NE(rate, result.metrics.end());
    EXPECT_EQ(rate->value, 50.0);
    EXPECT_EQ(rate->nominal, 200.0);
    EXPECT_EQ(result.samples.size(), 4u);  // 2 ports x 2 readings
}

TEST(FakeVerbsInventory, PlantedCounterDeltaIsReported) {
    FakeVerbs fake({fake_infiniband_device("mlx5_0", 0, 1)});
    const auto clean = report_hca_inventory(fake, {}, [] {});
    EXPECT_EQ(clean.status, Status::pass) << clean.reason;
    const auto result = report_hca_inventory(fake, {}, [&] {
        fake.add_to_counter("mlx5_0", 1, "symbol_error", 5);
        fake.add_to_counter("mlx5_0", 1, "port_xmit_data", 1'000'000);  // traffic, not an error
    });
    EXPECT_EQ(result.status, Status::fail);
    EXPECT_NE(result.reason.find("mlx5_0/1: symbol_error grew by 5 (0 -> 5)"), std::string::npos) << result.reason;
    EXPECT_EQ(result.reason.find("port_xmit_data"), std::string::npos) << result.reason;
    const auto growth = std::find_if(result.metrics.begin(), result.metrics.end(),
                                     [](const Metric& m) { return m.name == "ib_inventory.error_counter_growth"; });
    ASSERT_NE(growth, result.metrics.end());
    EXPECT_EQ(growth->value, 5.0);
    EXPECT_NE(result.parameters.at("counters mlx5_0/1 after").find("symbol_error=5"), std::string::npos);
    const auto totals = result.samples.column("error_counters_total");
    EXPECT_EQ(totals, (std::vector<double>{0.0, 5.0}));
}

TEST(FakeVerbsInventory, ADeviceThatCannotBeOpenedFails) {
    FakeVerbs fake({fake_infiniband_device("mlx5_0", 0, 1)});
    fake.fail_next("open", "ibv_open_device(mlx5_0) failed: Permission denied");
    const auto result = report_hca_inventory(fake, {}, [] {});
    EXPECT_EQ(result.status, Status::fail);
    EXPECT_NE(result.reason.find("Permission denied"), std::string::npos) << result.reason;
}

class SysfsTree : public ::testing::Test {
protected:
    void SetUp() override {
        root_ = std::filesystem::temp_directory_path() / ("shakedown-sysfs-" + std::to_string(::getpid()));
        const auto port = root_ / "mlx5_0" / "ports" / "1";
        std::filesystem::create_directories(port / "counters");
        std::filesystem::create_directories(port / "hw_counters");
        std::filesystem::create_directories(port / "gid_attrs" / "types");
        std::filesystem::create_directories(port / "gid_attrs" / "ndevs");
        std::filesystem::create_directories(root_ / "pci" / "0000:17:00.0");
        write(port / "counters" / "symbol_error", "12\n");
        write(port / "counters" / "link_downed", "1\n");
        write(port / "counters" / "not_a_number", "N/A\n");
        write(port / "hw_counters" / "out_of_sequence", "3\n");
        write(port / "gid_attrs" / "types" / "3", "RoCE v2\n");
        write(port / "gid_attrs" / "ndevs" / "3", "ens1f0\n");
        write(root_ / "pci" / "0000:17:00.0" / "numa_node", "1\n");
        std::filesystem::create_directory_symlink(root_ / "pci" / "0000:17:00.0", root_ / "mlx5_0" / "device");
    }
    void TearDown() override { std::filesystem::remove_all(root_); }
    static void write(const std::filesystem::path& file, const std::string& text) { std::ofstream(file) << text; }
    std::filesystem::path root_;
};

TEST_F(SysfsTree, CountersGidTypesNumaAndPciAreRead) {
    const auto counters = read_port_counters(root_, "mlx5_0", 1);
    EXPECT_EQ(counters, (PortCounters{{"link_downed", 1}, {"out_of_sequence", 3}, {"symbol_error", 12}}));
    EXPECT_EQ(read_gid_type(root_, "mlx5_0", 1, 3), "RoCE v2");
    EXPECT_EQ(read_gid_netdev(root_, "mlx5_0", 1, 3), "ens1f0");
    EXPECT_EQ(read_gid_type(root_, "mlx5_0", 1, 4), "");
    EXPECT_EQ(read_numa_node(root_, "mlx5_0"), 1);
    EXPECT_EQ(read_pci_address(root_, "mlx5_0"), "0000:17:00.0");
    EXPECT_EQ(pci_numa_node("0000:17:00.0", root_ / "pci"), 1);
    EXPECT_EQ(read_numa_node(root_, "mlx5_9"), -1);
    EXPECT_TRUE(read_port_counters(root_, "mlx5_9", 1).empty());
}

TEST(UcxTransports, LaneLinesNameTransportAndDevice) {
    const std::string info =
        "#\n# UCP endpoint\n#\n#               peer: <no debug data>\n"
        "#                 lane[0]:  8:posix/memory.0 md[4]          -> md[4]/posix/sysdev[255] rma_bw#0 am am_bw#0\n"
        "#                 lane[1]: 14:cma/memory.0 md[5]            -> md[5]/cma/sysdev[255] rma_bw#1\n"
        "#                 lane[2]:  3:rc_mlx5/mlx5_0:1.0 md[1]     -> md[1]/ib/sysdev[0] rma_bw#2\n"
        "#                 lane[3]:  9:posix/memory.0 md[4]          -> md[4]/posix/sysdev[255] rkey_ptr\n";
    EXPECT_EQ(ucx::transports_in(info), (std::vector<std::string>{"posix/memory", "cma/memory", "rc_mlx5/mlx5_0:1"}));
    EXPECT_TRUE(ucx::transports_in("no lanes here").empty());
}

}  // namespace
}  // namespace shakedown::ib::testing
