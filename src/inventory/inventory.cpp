#include "inventory/inventory.hpp"

#include "core/clock.hpp"
#include "core/session.hpp"
#include "inventory/inventory_names.hpp"
#include "inventory/inventory_sections.hpp"

namespace shakedown {
namespace {

// Enough for every GPU, NIC, HCA and NVMe drive of a large node; the count of the rest is kept.
constexpr std::size_t max_pci_devices = 64;

}  // namespace

nlohmann::json collect_inventory() {
    using namespace inventory_detail;
    const Stopwatch stopwatch;
    const HwlocTopology topology;
    std::string why_no_nvml;
    const auto nvml = Nvml::load(Nvml::default_library, &why_no_nvml);

    nlohmann::json inventory;
    inventory["node"] = this_node_name();
    inventory["collected_utc"] = now_utc();
    inventory[inventory_names::os::section] = os_section();
    inventory[inventory_names::board::section] = board_section();
    inventory["cpu"] = cpu_section(topology);
    inventory["memory"] = memory_section(topology);
    inventory["pci"] = pci_section(topology, max_pci_devices);
    inventory["network"] = network_section();
    inventory[inventory_names::rdma::section] = rdma_section();
    inventory["blas"] = blas_section();
    std::string gpu_runtime_error;
    inventory["gpus"] = gpu_section(nvml.get(), gpu_runtime_error);
    if (!gpu_runtime_error.empty()) inventory["gpu_runtime_error"] = gpu_runtime_error;
    inventory[inventory_names::nvml::section] = nvml_section(nvml.get(), why_no_nvml);
    inventory[inventory_names::versions::section] = versions_section(topology, nvml.get());
    inventory["collect_seconds"] = stopwatch.seconds();
    return inventory;
}

}  // namespace shakedown
