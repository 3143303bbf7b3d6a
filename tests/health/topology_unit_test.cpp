// Topology pieces without MPI or GPUs: PCIe link files of a made-up sysfs tree judged, the
// nvidia-smi path kinds from device-tree ancestries, NVLink counting, the expected-topology
// grammar.
#include "health/topology/expected_topology.hpp"
#include "health/topology/gpu_matrix.hpp"
#include "health/topology/pci_path.hpp"
#include "health/topology/pcie_link.hpp"
#include "temp_folder.hpp"

#include "core/errors.hpp"

#include <gtest/gtest.h>

#include <fstream>

namespace shakedown::health {
namespace {

using shakedown::testing::TempFolder;

void write_link(const std::filesystem::path& sys, const std::string& bus, const std::string& speed,
                const std::string& width, const std::string& max_speed, const std::string& max_width) {
    const auto folder = sys / "bus/pci/devices" / bus;
    std::filesystem::create_directories(folder);
    std::ofstream(folder / "current_link_speed") << speed << "\n";
    std::ofstream(folder / "current_link_width") << width << "\n";
    std::ofstream(folder / "max_link_speed") << max_speed << "\n";
    std::ofstream(folder / "max_link_width") << max_width << "\n";
}

TEST(PcieLink, ReadsSysfsAndNamesGenerations) {
    const TempFolder sys("health-sys");
    write_link(sys.path(), "0000:3b:00.0", "32.0 GT/s PCIe", "16", "32.0 GT/s PCIe", "16");
    const PcieLinkState link = read_pcie_link(sys.path().string(), "0000:3b:00.0");
    ASSERT_TRUE(link.known());
    EXPECT_EQ(link.generation_current(), 5);
    EXPECT_EQ(link.generation_max(), 5);
    EXPECT_EQ(link.width_current, 16);
    EXPECT_EQ(downtrained(link, false), "");
    EXPECT_FALSE(read_pcie_link(sys.path().string(), "0000:99:00.0").known());  // absent device
}

TEST(PcieLink, NarrowLinkAlwaysFailsSlowLinkUnlessIdleGpu) {
    const TempFolder sys("health-sys");
    write_link(sys.path(), "0000:3b:00.0", "16.0 GT/s PCIe", "8", "32.0 GT/s PCIe", "16");
    const PcieLinkState link = read_pcie_link(sys.path().string(), "0000:3b:00.0");
    EXPECT_EQ(downtrained(link, false), "x8 of x16, Gen4 of Gen5");
    EXPECT_EQ(downtrained(link, true), "x8 of x16");  // an idle GPU may drop its generation, not its width
    write_link(sys.path(), "0000:3c:00.0", "2.5 GT/s PCIe", "16", "32.0 GT/s PCIe", "16");
    EXPECT_EQ(downtrained(read_pcie_link(sys.path().string(), "0000:3c:00.0"), true), "");
    write_link(sys.path(), "0000:3d:00.0", "Unknown", "255", "Unknown", "255");  // virtual device
    EXPECT_FALSE(read_pcie_link(sys.path().string(), "0000:3d:00.0").known());
}

TEST(PcieLink, NominalRates) {
    EXPECT_DOUBLE_EQ(pcie_nominal_gbs(5, 16), 64.0);
    EXPECT_DOUBLE_EQ(pcie_nominal_gbs(4, 16), 32.0);
    EXPECT_EQ(pcie_generation(8.0), 3);
    EXPECT_EQ(pcie_generation(7.0), std::nullopt);
    EXPECT_EQ(pcie_rate_gts(6), 64.0);
}

TEST(PciPath, NvidiaSmiKindsFromAncestry) {
    const std::vector<std::string> gpu{"pci0000:00", "0000:00:01.0", "0000:01:00.0", "0000:02:00.0", "0000:03:00.0"};
    const std::vector<std::string> nic_same_switch{"pci0000:00", "0000:00:01.0", "0000:01:00.0", "0000:02:04.0", "0000:04:00.0"};
    const std::vector<std::string> nic_deeper{"pci0000:00", "0000:00:01.0", "0000:01:00.0", "0000:02:08.0", "0000:05:00.0",
                                              "0000:06:00.0", "0000:07:00.0"};
    const std::vector<std::string> nic_other_port{"pci0000:00", "0000:00:03.0", "0000:08:00.0"};
    const std::vector<std::string> nic_other_root{"pci0000:80", "0000:80:01.0", "0000:81:00.0"};
    EXPECT_EQ(pci_path_kind(gpu, nic_same_switch, 0, 0), "PIX");
    EXPECT_EQ(pci_path_kind(gpu, nic_deeper, 0, 0), "PXB");
    EXPECT_EQ(pci_path_kind(gpu, nic_other_port, 0, 0), "PHB");
    EXPECT_EQ(pci_path_kind(gpu, nic_other_root, 0, 0), "NODE");
    EXPECT_EQ(pci_path_kind(gpu, nic_other_root, 0, 1), "SYS");
    EXPECT_LT(path_rank("NV18"), path_rank("PIX"));
    EXPECT_LT(path_rank("PIX"), path_rank("SYS"));
    EXPECT_EQ(path_rank("XYZ"), -1);
}

TEST(PciPath, AncestryFollowsSysfsLinks) {
    const TempFolder sys("health-sys");
    const auto device = sys.path() / "devices/pci0000:00/0000:00:01.0/0000:01:00.0";
    std::filesystem::create_directories(device);
    std::filesystem::create_directories(sys.path() / "bus/pci/devices");
    std::filesystem::create_directory_symlink(device, sys.path() / "bus/pci/devices/0000:01:00.0");
    EXPECT_EQ(pci_ancestry(sys.path().string(), "0000:01:00.0"),
              (std::vector<std::string>{"pci0000:00", "0000:00:01.0", "0000:01:00.0"}));
    EXPECT_TRUE(pci_ancestry(sys.path().string(), "0000:02:00.0").empty());
}

TEST(GpuMatrix, CountsLinksToThePeerAndLabels) {
    const std::vector<std::string> remote(18, "00000000:1B:00.0");
    EXPECT_EQ(links_to(remote, "0000:1b:00.0"), 18u);
    EXPECT_EQ(links_to(remote, "0000:2b:00.0"), 0u);
    EXPECT_EQ(link_label(18, nvml_abi::topology_system), "NV18");
    EXPECT_EQ(link_label(0, nvml_abi::topology_single), "PIX");
    EXPECT_EQ(link_label(0, nvml_abi::topology_hostbridge), "PHB");
    EXPECT_EQ(link_label(0, nvml_abi::topology_node), "NODE");
    EXPECT_EQ(link_label(0, std::nullopt), "?");
}

TEST(ExpectedTopology, ParsesTheGrammar) {
    const auto expected = parse_expected_topology("{gpus: 2, gpu_pairs: NV18, gpu_nic: PIX, pcie_gen: 5, pcie_width: 16}");
    EXPECT_EQ(expected.gpus, 2);
    EXPECT_EQ(expected.gpu_pairs, "NV18");
    EXPECT_EQ(expected.gpu_nic, "PIX");
    EXPECT_EQ(expected.pcie_gen, 5);
    EXPECT_EQ(expected.pcie_width, 16);
    EXPECT_TRUE(parse_expected_topology("").empty());
    EXPECT_TRUE(pair_meets("NV18", "NV18"));
    EXPECT_FALSE(pair_meets("NV12", "NV18"));
    EXPECT_TRUE(pair_meets("NV4", "NV"));
    EXPECT_TRUE(pair_meets("PIX", "PXB"));
    EXPECT_FALSE(pair_meets("SYS", "PXB"));
    EXPECT_TRUE(pair_meets("NV2", "PHB"));
}

TEST(ExpectedTopology, BadTextIsAnInputErrorNamingTheProblem) {
    auto message = [](const std::string& text) {
        try {
            parse_expected_topology(text);
        } catch (const InputError& error) {
            return std::string(error.what());
        }
        return std::string("no error");
    };
    EXPECT_NE(message("{gpu_pairs: NV18").find("is not YAML"), std::string::npos);
    EXPECT_NE(message("NV18").find("must be a map"), std::string::npos);
    EXPECT_NE(message("{gpu_links: NV18}").find("unknown key 'gpu_links'"), std::string::npos);
    EXPECT_NE(message("{gpu_pairs: NVX}").find("is not NV<n>"), std::string::npos);
    EXPECT_NE(message("{gpu_nic: NV2}").find("is not PIX"), std::string::npos);
    EXPECT_NE(message("{pcie_gen: 9}").find("not 1..7"), std::string::npos);
    EXPECT_NE(message("{gpus: two}").find("wrong type"), std::string::npos);
}

}  // namespace
}  // namespace shakedown::health
