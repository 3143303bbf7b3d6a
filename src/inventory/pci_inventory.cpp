// PCI devices from hwloc: the GPUs, NICs, HCAs and storage controllers, with the NUMA node
// they hang off and their OS device names (eth0, mlx5_0, nvme0n1), which later tie a GPU to
// its nearest NIC.
#include "inventory/inventory_sections.hpp"

#include <fmt/format.h>

#include <array>

namespace shakedown::inventory_detail {
namespace {

struct PciClassName {
    unsigned class_id;  // full 16-bit class (base << 8 | sub) or base class alone
    bool base_only;
    std::string_view name;
};

// PCI-SIG class codes; the exact ones first, then the base classes.
constexpr std::array<PciClassName, 16> pci_class_names{{
    {0x0108, false, "nvme"},        {0x0106, false, "sata"},          {0x0104, false, "raid"},
    {0x0200, false, "ethernet"},    {0x0207, false, "infiniband"},    {0x0300, false, "vga"},
    {0x0302, false, "3d_controller"}, {0x0c06, false, "infiniband"},  {0x01, true, "storage"},
    {0x02, true, "network"},        {0x03, true, "display"},          {0x06, true, "bridge"},
    {0x0b, true, "processor"},      {0x0c, true, "serial_bus"},       {0x12, true, "accelerator"},
    {0x11, true, "signal_processing"},
}};

std::string class_name(unsigned class_id) {
    for (const auto& entry : pci_class_names)
        if (entry.base_only ? (class_id >> 8) == entry.class_id : class_id == entry.class_id)
            return std::string(entry.name);
    return "other";
}

}  // namespace

std::string pci_bus_id(unsigned domain, unsigned bus, unsigned device) {
    return fmt::format("{:04x}:{:02x}:{:02x}.0", domain, bus, device);
}

nlohmann::json pci_section(const HwlocTopology& topology, std::size_t max_devices) {
    nlohmann::json devices = nlohmann::json::array();
    std::size_t omitted = 0;
    for (hwloc_obj_t obj = hwloc_get_next_pcidev(topology.get(), nullptr); obj != nullptr;
         obj = hwloc_get_next_pcidev(topology.get(), obj)) {
        if (devices.size() >= max_devices) {
            ++omitted;
            continue;
        }
        const auto& pci = obj->attr->pcidev;
        nlohmann::json device{
            {"bus_id", fmt::format("{:04x}:{:02x}:{:02x}.{:x}", pci.domain, pci.bus, pci.dev, pci.func)},
            {"class", class_name(pci.class_id)},
            {"class_id", fmt::format("{:04x}", pci.class_id)},
            {"vendor_id", fmt::format("{:04x}", pci.vendor_id)},
            {"device_id", fmt::format("{:04x}", pci.device_id)},
        };
        if (pci.linkspeed > 0.0f) device["link_gbytes_per_s"] = pci.linkspeed;  // hwloc: GB/s, all lanes
        if (const char* vendor = hwloc_obj_get_info_by_name(obj, "PCIVendor")) device["vendor"] = vendor;
        if (const char* model = hwloc_obj_get_info_by_name(obj, "PCIDevice")) device["model"] = model;
        const hwloc_obj_t parent = hwloc_get_non_io_ancestor_obj(topology.get(), obj);
        device["numa_node"] = parent != nullptr && parent->nodeset != nullptr && !hwloc_bitmap_iszero(parent->nodeset) &&
                                      hwloc_bitmap_weight(parent->nodeset) == 1
                                  ? hwloc_bitmap_first(parent->nodeset)
                                  : -1;  // -1: not local to one NUMA node
        nlohmann::json os_devices = nlohmann::json::array();
        for (hwloc_obj_t child = obj->io_first_child; child != nullptr; child = child->next_sibling)
            if (child->type == HWLOC_OBJ_OS_DEVICE && child->name != nullptr) os_devices.push_back(child->name);
        device["os_devices"] = os_devices;
        devices.push_back(std::move(device));
    }
    return {{"devices", devices}, {"omitted", omitted}};
}

}  // namespace shakedown::inventory_detail
