// collect_inventory() on the machine the tests run on: keys present, values sane.
#include "core/gpu_runtime.hpp"
#include "inventory/inventory.hpp"

#include <gtest/gtest.h>

#include <dlfcn.h>

#include <algorithm>

namespace shakedown {
namespace {

using json = nlohmann::json;

class Inventory : public ::testing::Test {
protected:
    static void SetUpTestSuite() { inventory_ = new json(collect_inventory()); }
    static void TearDownTestSuite() {
        delete inventory_;
        inventory_ = nullptr;
    }
    static const json& inventory() { return *inventory_; }

private:
    static json* inventory_;
};
json* Inventory::inventory_ = nullptr;

TEST_F(Inventory, HasEverySection) {
    for (const char* key : {"node", "os", "cpu", "memory", "pci", "network", "rdma", "blas", "gpus", "nvml", "versions"})
        EXPECT_TRUE(inventory().contains(key)) << key;
    EXPECT_FALSE(inventory()["node"].get<std::string>().empty());
    EXPECT_TRUE(inventory()["rdma"].is_array());
    EXPECT_TRUE(inventory()["gpus"].is_array());
    EXPECT_FALSE(inventory()["os"]["kernel"].get<std::string>().empty());
}

TEST_F(Inventory, CpuAndMemoryAreSane) {
    const json& cpu = inventory()["cpu"];
    EXPECT_FALSE(cpu["model"].get<std::string>().empty());
    EXPECT_NE(cpu["model"].get<std::string>().back(), ' ');
    EXPECT_GE(cpu["sockets"].get<int>(), 1);
    EXPECT_GE(cpu["cores"].get<int>(), 1);
    EXPECT_GE(cpu["pus"].get<int>(), cpu["cores"].get<int>());
    EXPECT_GE(cpu["numa_nodes"].get<int>(), 1);
    EXPECT_GE(cpu["allowed_pus"].get<int>(), 1);
    EXPECT_GT(cpu["max_mhz"].get<double>(), 100.0);
    const std::string source = cpu["max_mhz_source"];
    EXPECT_TRUE(source == "cpufreq" || source == "proc_cpuinfo") << source;
    ASSERT_TRUE(cpu["flags"].is_array());
    ASSERT_FALSE(cpu["flags"].empty());
    const auto flags = cpu["flags"].get<std::vector<std::string>>();
#if defined(__x86_64__)
    EXPECT_NE(std::find(flags.begin(), flags.end(), "sse2"), flags.end());
    const auto vector_flags = cpu["vector_flags"].get<std::vector<std::string>>();
    EXPECT_NE(std::find(vector_flags.begin(), vector_flags.end(), "sse2"), vector_flags.end());
#endif

    const json& memory = inventory()["memory"];
    EXPECT_GT(memory["total_bytes"].get<double>(), 1024.0 * 1024 * 1024);
    ASSERT_EQ(memory["numa"].size(), cpu["numa_nodes"].get<std::size_t>());
    double numa_sum = 0.0;
    for (const auto& node : memory["numa"]) numa_sum += node["bytes"].get<double>();
    EXPECT_NEAR(numa_sum, memory["numa_total_bytes"].get<double>(), 1.0);
    // The larger of hwloc's and the OS's count (they differ in a VM with hot-plugged memory).
    EXPECT_EQ(memory["total_bytes"].get<std::uint64_t>(),
              std::max(memory["numa_total_bytes"].get<std::uint64_t>(), memory["os_total_bytes"].get<std::uint64_t>()));
    EXPECT_GT(memory["os_total_bytes"].get<double>(), 1024.0 * 1024 * 1024);
}

TEST_F(Inventory, NetworkHasLoopback) {
    const json& network = inventory()["network"];
    auto loopback = std::find_if(network.begin(), network.end(), [](const json& nic) { return nic["name"] == "lo"; });
    ASSERT_NE(loopback, network.end());
    EXPECT_EQ((*loopback)["mtu"].get<int>(), 65536);
    EXPECT_EQ((*loopback)["speed_mbps"].get<int>(), -1);  // the loopback has no link speed
    EXPECT_EQ((*loopback)["type"], "loopback");
    for (const auto& nic : network)
        for (const char* key : {"name", "mtu", "speed_mbps", "operstate"}) EXPECT_TRUE(nic.contains(key)) << key;
}

TEST_F(Inventory, VersionsAreFilled) {
    const json& versions = inventory()["versions"];
    EXPECT_EQ(versions["shakedown"], SHAKEDOWN_VERSION);
    EXPECT_FALSE(versions["mpi"].get<std::string>().empty());
    EXPECT_EQ(versions["mpi"].get<std::string>().find('\n'), std::string::npos);
    EXPECT_EQ(versions["mpi"].get<std::string>().find('\0'), std::string::npos);
    EXPECT_FALSE(versions["mpi_standard"].get<std::string>().empty());
    EXPECT_EQ(versions["hdf5"].get<std::string>().substr(0, 2), "1.");
    EXPECT_EQ(versions["hwloc"].get<std::string>().substr(0, 2), "2.");
    EXPECT_FALSE(versions["compiler"].get<std::string>().empty());
    for (const char* key : {"cuda", "nccl", "kokkos", "nvidia_driver"}) EXPECT_TRUE(versions.contains(key)) << key;
    // A CUDA build on a node without a driver says so, never "driver 0.0".
    const std::string cuda = versions["cuda"].get<std::string>();
    EXPECT_EQ(cuda.find("driver 0.0"), std::string::npos) << cuda;
    if (cuda.rfind("CUDA runtime", 0) == 0)
        EXPECT_TRUE(cuda.find("(no driver)") != std::string::npos || cuda.find("(driver ") != std::string::npos) << cuda;
}

TEST_F(Inventory, BlasIsIdentified) {
    const json& blas = inventory()["blas"];
    for (const char* key : {"library", "openblas_core", "openblas_config"}) EXPECT_TRUE(blas.contains(key)) << key;
    void* probe = dlopen("libblas.so.3", RTLD_LAZY | RTLD_NOLOAD);
    const bool installed = probe != nullptr || dlopen("libblas.so.3", RTLD_LAZY) != nullptr;
    if (!installed) GTEST_SKIP() << "no libblas.so.3 on this machine";
    EXPECT_FALSE(blas["library"].get<std::string>().empty());
    if (blas.value("vendor", "") == "OpenBLAS") {
        EXPECT_FALSE(blas["openblas_core"].get<std::string>().empty());
        EXPECT_NE(blas["openblas_config"].get<std::string>().find("OpenBLAS"), std::string::npos);
    }
}

TEST_F(Inventory, GpusMatchTheRuntime) {
    const json& gpus = inventory()["gpus"];
    EXPECT_EQ(static_cast<int>(gpus.size()), visible_gpu_count());
    if (gpus.empty()) {
        // CPU-only machine: the reason is recorded, and NVML is reported as not loaded.
        EXPECT_TRUE(inventory().contains("gpu_runtime_error"));
        if (!inventory()["nvml"]["loaded"].get<bool>()) {
            EXPECT_FALSE(inventory()["nvml"]["reason"].get<std::string>().empty());
        }
    }
    for (const auto& gpu : gpus)
        for (const char* key : {"index", "name", "uuid", "pci_bus_id", "sm_count", "compute_capability",
                                "max_sm_clock_mhz", "memory_clock_mhz", "memory_bus_width_bits", "memory_bytes"})
            EXPECT_TRUE(gpu.contains(key)) << key;
}

// On a GPU node: CUDA's view and NVML's view of each GPU must agree. This is the end-to-end
// check of our NVML declarations (PCI struct layout, UUID text) against the real driver.
TEST_F(Inventory, GpusAgreeWithNvmlWhenPresent) {
    const json& gpus = inventory()["gpus"];
    if (gpus.empty()) GTEST_SKIP() << "no CUDA device";
    for (const auto& gpu : gpus) {
        SCOPED_TRACE(gpu.dump());
        EXPECT_GT(gpu["sm_count"].get<int>(), 0);
        EXPECT_EQ(gpu["compute_capability"].get<std::string>().find('.'), 1u);
        EXPECT_GT(gpu["max_sm_clock_mhz"].get<double>(), 500.0);
        EXPECT_GT(gpu["memory_clock_mhz"].get<double>(), 500.0);
        EXPECT_GT(gpu["memory_bus_width_bits"].get<int>(), 0);
        EXPECT_GT(gpu["memory_bytes"].get<double>(), 1024.0 * 1024 * 1024);
        EXPECT_EQ(gpu["uuid"].get<std::string>().rfind("GPU-", 0), 0u);
        if (!inventory()["nvml"]["loaded"].get<bool>()) continue;
        ASSERT_TRUE(gpu.contains("nvml")) << "no NVML device with the CUDA UUID";
        EXPECT_EQ(gpu["nvml"]["pci_bus_id"], gpu["pci_bus_id"]);
        EXPECT_EQ(gpu["nvml"]["compute_capability"], gpu["compute_capability"]);
        EXPECT_GT(gpu["nvml"]["power_limit_w"].get<double>(), 50.0);
    }
}

TEST_F(Inventory, PciDevicesAreBounded) {
    const json& pci = inventory()["pci"];
    ASSERT_TRUE(pci["devices"].is_array());
    EXPECT_LE(pci["devices"].size(), 64u);
    for (const auto& device : pci["devices"]) {
        EXPECT_EQ(device["bus_id"].get<std::string>().size(), 12u);  // "0000:00:02.0"
        EXPECT_EQ(device["vendor_id"].get<std::string>().size(), 4u);
    }
}

TEST_F(Inventory, IsQuick) {
    // The target is < 0.5 s per rank; this shared 2-core CI machine gets generous slack.
    EXPECT_LT(inventory()["collect_seconds"].get<double>(), 2.0);
    RecordProperty("collect_seconds", std::to_string(inventory()["collect_seconds"].get<double>()));
}

}  // namespace
}  // namespace shakedown
