// The health tests through the driver's path (execute_test) on 2 and 4 ranks of this
// machine: storage validated and cleaned up (also after a planted corruption), bad targets
// refused before any work, network_mtu over the real interfaces within seconds, topology's
// PCI part on the real inventory and on a made-up sysfs tree with a downtrained NIC, burn-in
// on the host cores in validated windows with a planted wrong product caught, and the GPU
// tests waived with the reason.
#include "support/mpi_world.hpp"
#include "support/result_lookup.hpp"
#include "support/run_test.hpp"
#include "shared_folder.hpp"

#include "core/clock.hpp"
#include "core/errors.hpp"
#include "inventory/inventory.hpp"

#include <gtest/gtest.h>

#include <fstream>

namespace shakedown::testing {
namespace {

const nlohmann::json& real_inventory() {
    static const nlohmann::json inventory = collect_inventory();
    return inventory;
}

std::string storage_yaml(const std::filesystem::path& target) {
    return "params: {storage: {target: '" + target.string() + "', size_mib: 8, block_kib: 256, random_s: 0.2}}\n";
}

TEST(Storage, ValidatedPerNodeAndFilesRemoved) {
    const SharedFolder folder("health-storage");
    const TestResult result = run_registered_test("storage", storage_yaml(folder.path()));
    ASSERT_EQ(result.status, Status::pass) << result.reason;
    EXPECT_EQ(result.parameters.at("target_used"), folder.path().string());
    if (world_rank() == 0) {  // one node: rank 0 is its leader and the only writer
        for (const char* name : {"storage.write_gbs", "storage.read_gbs", "storage.random_read_iops"}) {
            const auto metric = find_metric(result, name);
            ASSERT_TRUE(metric) << name;
            EXPECT_GT(metric->value, 0.0) << name;
        }
        EXPECT_EQ(result.parameters.at("file_mib_used"), "8");
        EXPECT_EQ(result.parameters.at("all_nodes_phase"), "skipped: one node, the per-node figures are the job's");
        EXPECT_FALSE(result.parameters.at("cache_mode").empty());
        EXPECT_EQ(result.samples.size(), 1u);
    } else {
        EXPECT_EQ(result.parameters.at("role"), "not a node leader: no I/O");
        EXPECT_TRUE(result.metrics.empty());
    }
    MPI_Barrier(MPI_COMM_WORLD);
    EXPECT_EQ(folder.entry_count(), 0u);
}

TEST(Storage, PlantedCorruptionFailsAndStillRemovesTheFile) {
    const SharedFolder folder("health-storage");
    const TestResult result =
        run_registered_test("storage", storage_yaml(folder.path()) + "faults: [{kind: corrupt, test: storage, rank: 0}]\n");
    if (world_rank() == 0) {
        ASSERT_EQ(result.status, Status::fail);
        EXPECT_NE(result.reason.find("read-back differs from what was written"), std::string::npos) << result.reason;
        EXPECT_NE(result.reason.find("byte offset 4325376 reads"), std::string::npos) << result.reason;
    } else {
        EXPECT_EQ(result.status, Status::pass) << result.reason;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    EXPECT_EQ(folder.entry_count(), 0u);
}

TEST(Storage, MissingOrUnwritableTargetIsInputError) {
    const SharedFolder folder("health-storage");
    try {
        run_registered_test("storage", storage_yaml(folder.path() / "missing"));
        FAIL() << "no InputError";
    } catch (const InputError& error) {
        EXPECT_NE(std::string(error.what()).find("missing' does not exist"), std::string::npos) << error.what();
    }
    try {
        run_registered_test("storage", storage_yaml("/sys/kernel"));
        FAIL() << "no InputError";
    } catch (const InputError& error) {
        EXPECT_NE(std::string(error.what()).find("'/sys/kernel' is not writable"), std::string::npos) << error.what();
    }
    EXPECT_THROW(run_registered_test("storage", "params: {storage: {block_kib: 3}}\n"), InputError);
}

TEST(NetworkMtu, RealInterfacesWithinSeconds) {
    const Stopwatch watch;
    const TestResult result = run_registered_test("network_mtu", "", real_inventory());
    EXPECT_LT(watch.seconds(), 20.0);
    ASSERT_EQ(result.status, Status::pass) << result.reason;
    if (world_rank() != 0) return;
    EXPECT_NE(result.parameters.at("interface_mtus").find("lo=65536"), std::string::npos)
        << result.parameters.at("interface_mtus");
    const std::string job = result.parameters.at("job_interface");
    long long job_mtu = -1;
    for (const auto& interface : real_inventory()["network"])
        if (interface["name"] == job) job_mtu = interface["mtu"].get<long long>();
    ASSERT_GT(job_mtu, 0) << job;
    EXPECT_EQ(find_metric(result, "network_mtu.interface_mtu_bytes")->value, job_mtu);
    const auto path = find_metric(result, "network_mtu.path_mtu_bytes");
    ASSERT_TRUE(path);
    EXPECT_EQ(path->value, std::min(job_mtu, 65535LL));  // one node: the leader probes itself
    EXPECT_EQ(result.samples.size(), real_inventory()["network"].size());
}

TEST(NetworkMtu, LoopbackAndExpectedMismatchNamed) {
    const TestResult lo = run_registered_test("network_mtu", "params: {network_mtu: {interface: lo}}\n", real_inventory());
    ASSERT_EQ(lo.status, Status::pass) << lo.reason;
    if (world_rank() == 0) EXPECT_EQ(find_metric(lo, "network_mtu.path_mtu_bytes")->value, 65535.0);

    const TestResult wrong = run_registered_test(
        "network_mtu", "params: {network_mtu: {interface: lo, expected_mtu: 9000, interface_mtu: '{lo: 1500}'}}\n",
        real_inventory());
    if (world_rank() == 0) {
        ASSERT_EQ(wrong.status, Status::fail);
        EXPECT_NE(wrong.reason.find("lo: MTU 65536, expected 1500"), std::string::npos) << wrong.reason;
    } else {
        EXPECT_EQ(wrong.status, Status::pass);
    }
    EXPECT_THROW(run_registered_test("network_mtu", "params: {network_mtu: {interface_mtu: '{eth0: nine}'}}\n"), InputError);
}

TEST(Topology, PciPartOnThisMachineReports) {
    const TestResult result = run_registered_test("topology", "", real_inventory());
    ASSERT_EQ(result.status, Status::pass) << result.reason;
    EXPECT_NE(result.parameters.at("bound_gpu").find("no CUDA device"), std::string::npos);
    if (world_rank() != 0) return;
    EXPECT_TRUE(result.parameters.count("pci_links"));
    const auto checked = find_metric(result, "topology.pci_links_checked_count");
    const auto unreported = find_metric(result, "topology.pci_links_unreported_count");
    ASSERT_TRUE(checked && unreported);
    EXPECT_EQ(find_metric(result, "topology.downtrained_links_count")->value, 0.0);
    // Every network/storage/GPU device of the inventory is either checked or named as unreported.
    int judged = 0;
    for (const auto& device : real_inventory()["pci"]["devices"]) {
        const std::string kind = device["class"];
        judged += kind == "ethernet" || kind == "network" || kind == "infiniband" || kind == "nvme" || kind == "vga" ||
                  kind == "3d_controller" || kind == "display" || kind == "accelerator";
    }
    EXPECT_EQ(checked->value + unreported->value, judged);
}

TEST(Topology, DowntrainedNicOnMadeUpSysfsFails) {
    const SharedFolder sys("health-sysfs");
    if (world_rank() == 0)
        for (const auto& [bus, width] : {std::pair{"0000:3b:00.0", "8"}, std::pair{"0000:5e:00.0", "16"}}) {
            const auto folder = sys.path() / "bus/pci/devices" / bus;
            std::filesystem::create_directories(folder);
            std::ofstream(folder / "current_link_speed") << "32.0 GT/s PCIe\n";
            std::ofstream(folder / "max_link_speed") << "32.0 GT/s PCIe\n";
            std::ofstream(folder / "current_link_width") << width << "\n";
            std::ofstream(folder / "max_link_width") << "16\n";
        }
    MPI_Barrier(MPI_COMM_WORLD);
    const nlohmann::json inventory = {
        {"pci",
         {{"devices",
           {{{"bus_id", "0000:3b:00.0"}, {"class", "infiniband"}, {"numa_node", 0}, {"os_devices", {"mlx5_0"}}},
            {{"bus_id", "0000:5e:00.0"}, {"class", "ethernet"}, {"numa_node", 1}, {"os_devices", {"eth7"}}}}}}}};
    const TestResult result = run_registered_test(
        "topology", "params: {topology: {sys_root: '" + sys.path().string() + "', expected: '{pcie_gen: 5}'}}\n", inventory);
    if (world_rank() != 0) return;
    ASSERT_EQ(result.status, Status::fail);
    EXPECT_NE(result.reason.find("0000:3b:00.0 infiniband mlx5_0 PCIe link downtrained: x8 of x16"), std::string::npos)
        << result.reason;
    EXPECT_EQ(result.reason.find("eth7"), std::string::npos) << result.reason;  // the healthy one is not blamed
    EXPECT_EQ(find_metric(result, "topology.pci_links_checked_count")->value, 2.0);
    EXPECT_EQ(find_metric(result, "topology.downtrained_links_count")->value, 1.0);
    EXPECT_NE(result.parameters.at("pci_links").find("0000:5e:00.0 ethernet eth7 numa 1: Gen5 x16 (max Gen5 x16)"),
              std::string::npos)
        << result.parameters.at("pci_links");
}

TEST(Topology, ExpectedTopologyThatDoesNotParseIsInputError) {
    try {
        run_registered_test("topology", "params: {topology: {expected: '{gpu_pairs: NV18, wires: 3}'}}\n");
        FAIL() << "no InputError";
    } catch (const InputError& error) {
        EXPECT_NE(std::string(error.what()).find("unknown key 'wires'"), std::string::npos) << error.what();
    }
}

const std::string host_burnin = "params: {burnin: {host: true, duration_s: 3, window_s: 1, host_n: 128, telemetry_hz: 10}}\n";

TEST(Burnin, HostCoresThreeValidatedWindows) {
    const TestResult result = run_registered_test("burnin", host_burnin, real_inventory());
    ASSERT_EQ(result.status, Status::pass) << result.reason;
    EXPECT_EQ(result.parameters.at("windows"), "3");
    EXPECT_EQ(result.parameters.at("host_n"), "128");
    ASSERT_EQ(result.samples.size(), 3u);
    for (double valid : result.samples.column("valid")) EXPECT_EQ(valid, 1.0);
    for (double seconds : result.samples.column("seconds")) EXPECT_GE(seconds, 1.0);
    for (double samples : result.samples.column("telemetry_samples")) EXPECT_GE(samples, 5.0);  // 10 Hz over 1 s
    const auto rate = find_metric(result, "burnin.host_tflops");
    ASSERT_TRUE(rate);
    EXPECT_GT(rate->value, 1e-5);
    EXPECT_EQ(find_metric(result, "burnin.host_wrong_windows_count")->value, 0.0);
    EXPECT_TRUE(find_metric(result, "burnin.host_drift_pct"));
    EXPECT_TRUE(find_metric(result, "burnin.host_tflops_first_window"));
    EXPECT_TRUE(find_metric(result, "burnin.host_tflops_last_window"));
}

TEST(Burnin, PlantedWrongProductCaughtInItsWindow) {
    const TestResult result = run_registered_test(
        "burnin", host_burnin + "faults: [{kind: corrupt, test: burnin, rank: 1}]\n", real_inventory());
    if (world_rank() == 1) {
        ASSERT_EQ(result.status, Status::fail);
        EXPECT_NE(result.reason.find("host window 2/3 produced a wrong product: C(42, 64)"), std::string::npos) << result.reason;
        EXPECT_EQ(find_metric(result, "burnin.host_wrong_windows_count")->value, 1.0);
        EXPECT_EQ(result.samples.column("valid"), (std::vector<double>{1.0, 0.0, 1.0}));
    } else {
        EXPECT_EQ(result.status, Status::pass) << result.reason;
    }
}

TEST(GpuTests, WaivedWithoutCudaDevice) {
    for (const char* key : {"h2d_bandwidth", "burnin"}) {
        const TestResult result = run_registered_test(key, "", real_inventory());
        EXPECT_EQ(result.status, Status::waived) << key;
        EXPECT_EQ(result.reason, "no CUDA device") << key;
    }
}

}  // namespace
}  // namespace shakedown::testing
