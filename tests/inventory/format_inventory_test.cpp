#include "inventory/inventory.hpp"

#include <gtest/gtest.h>

namespace shakedown {
namespace {

using json = nlohmann::json;

TEST(FormatInventory, ShowsThisMachine) {
    const json inventory = collect_inventory();
    const std::string page = format_inventory(inventory);
    EXPECT_NE(page.find(inventory["cpu"]["model"].get<std::string>()), std::string::npos) << page;
    EXPECT_NE(page.find(inventory["node"].get<std::string>()), std::string::npos);
    EXPECT_NE(page.find("lo "), std::string::npos);
    EXPECT_NE(page.find(inventory["versions"]["hdf5"].get<std::string>()), std::string::npos);
    EXPECT_EQ(page.find('\0'), std::string::npos);  // a NUL would cut the printed page
    EXPECT_NE(page.find("collected in"), std::string::npos);
}

TEST(FormatInventory, ToleratesMissingSections) {
    EXPECT_NO_THROW(format_inventory(json::object()));
    EXPECT_NO_THROW(format_inventory(json{{"cpu", json::object()}, {"gpus", json::array()}}));
}

TEST(FormatInventory, ShowsGpusRdmaAndOpenBlasCore) {
    const json inventory = {
        {"node", "gpu-node-7"},
        {"cpu", {{"model", "Intel Xeon Platinum 8480+"}, {"cores", 112}}},
        {"blas", {{"library", "/usr/lib/libopenblas.so.0"}, {"openblas_core", "Prescott"},
                  {"openblas_config", "OpenBLAS 0.3.21 DYNAMIC_ARCH"}}},
        {"gpus", {{{"index", 0}, {"name", "NVIDIA H200"}, {"sm_count", 132}, {"compute_capability", "9.0"},
                   {"max_sm_clock_mhz", 1980.0}, {"memory_bytes", 150.0 * (1ull << 30)}, {"pci_bus_id", "0000:19:00.0"},
                   {"uuid", "GPU-0"},
                   {"nvml", {{"pcie_generation_current", 5}, {"pcie_width_current", 16}, {"nvlink_active_links", 18}}}}}},
        {"rdma", {{{"name", "mlx5_0"}, {"fw_ver", "28.39.1002"},
                   {"ports", {{{"port", 1}, {"state", "PORT_ACTIVE"}, {"speed", "NDR"}, {"width", "4x"},
                               {"rate_gbps", 400.0}, {"active_mtu", 4096}, {"link_layer", "InfiniBand"}}}}}}},
    };
    const std::string page = format_inventory(inventory);
    for (const char* expected : {"gpu-node-7", "Intel Xeon Platinum 8480+", "Prescott", "NVIDIA H200", "132 SMs",
                                 "0000:19:00.0", "NVLink active 18", "mlx5_0", "NDR 4x = 400", "150.0 GiB"})
        EXPECT_NE(page.find(expected), std::string::npos) << expected << "\n" << page;
}

}  // namespace
}  // namespace shakedown
