// The pure parts of the inventory: code tables, formats, and /sys parsing on a fake tree.
#include "inventory/inventory_sections.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <unistd.h>

namespace shakedown::inventory_detail {
namespace {

TEST(InventoryParts, InfiniBandRates) {
    EXPECT_EQ(ib_rate_gbps(128, 2), 400.0);  // NDR 4x
    EXPECT_EQ(ib_rate_gbps(64, 2), 200.0);   // HDR 4x
    EXPECT_EQ(ib_rate_gbps(32, 1), 25.0);    // EDR 1x
    EXPECT_EQ(ib_rate_gbps(64, 16), 100.0);  // HDR 2x
    EXPECT_FALSE(ib_rate_gbps(3, 2));
    EXPECT_FALSE(ib_rate_gbps(128, 3));
    EXPECT_EQ(ib_speed_name(128), "NDR");
    EXPECT_EQ(ib_speed_name(7), "code 7");
    EXPECT_EQ(ib_width_lanes(8), 12u);
}

TEST(InventoryParts, Formats) {
    EXPECT_EQ(pci_bus_id(0, 0x19, 0), "0000:19:00.0");
    EXPECT_EQ(pci_bus_id(1, 0xab, 0x1f), "0001:ab:1f.0");
    EXPECT_EQ(first_line("Open MPI v4.1.4, package: Debian, ident: 4.1.4\nrepo rev: v4.1.4\n"),
              "Open MPI v4.1.4, package: Debian, ident: 4.1.4");
    EXPECT_EQ(first_line("MPICH Version:\t4.1\r\nMPICH Release date: x"), "MPICH Version:\t4.1");
    EXPECT_EQ(first_line(""), "");
}

TEST(InventoryParts, RdmaWithoutDevicesIsEmpty) {
    if (!std::filesystem::exists("/sys/class/infiniband") || std::filesystem::is_empty("/sys/class/infiniband")) {
        const auto hcas = rdma_section();
        ASSERT_TRUE(hcas.is_array());
        EXPECT_TRUE(hcas.empty());
    } else {
        for (const auto& hca : rdma_section()) EXPECT_TRUE(hca.contains("name"));
    }
}

TEST(InventoryParts, NetworkFromAFakeSysTree) {
    namespace fs = std::filesystem;
    const fs::path root = fs::temp_directory_path() / ("shakedown_net_" + std::to_string(::getpid()));
    fs::remove_all(root);
    auto write = [&root](const std::string& relative, const std::string& text) {
        fs::create_directories((root / relative).parent_path());
        std::ofstream(root / relative) << text;
    };
    write("ib0/mtu", "4092\n");
    write("ib0/speed", "400000\n");
    write("ib0/operstate", "up\n");
    write("ib0/type", "32\n");
    write("eth1/mtu", "9000\n");
    write("eth1/operstate", "down\n");  // no speed file readable when the link is down
    write("eth1/type", "1\n");
    const auto network = network_section(root.string());
    fs::remove_all(root);
    ASSERT_EQ(network.size(), 2u);
    EXPECT_EQ(network[0]["name"], "eth1");  // sorted by name
    EXPECT_EQ(network[0]["mtu"], 9000);
    EXPECT_EQ(network[0]["speed_mbps"], -1);
    EXPECT_EQ(network[0]["operstate"], "down");
    EXPECT_EQ(network[0]["type"], "ether");
    EXPECT_EQ(network[1]["name"], "ib0");
    EXPECT_EQ(network[1]["speed_mbps"], 400000);
    EXPECT_EQ(network[1]["type"], "infiniband");
}

}  // namespace
}  // namespace shakedown::inventory_detail
