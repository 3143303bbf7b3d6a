#include "inventory/hwloc_topology.hpp"

#include <stdexcept>

namespace shakedown {

HwlocTopology::HwlocTopology() {
    if (hwloc_topology_init(&topology_) != 0) throw std::runtime_error("hwloc_topology_init failed");
    // The whole machine, not only this rank's cgroup: nominal figures need every core.
    hwloc_topology_set_flags(topology_, HWLOC_TOPOLOGY_FLAG_INCLUDE_DISALLOWED);
    // GPUs, NICs, storage controllers and other PCI devices with an OS device; no bridges.
    hwloc_topology_set_io_types_filter(topology_, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
    // hwloc's GPU plugins would initialise CUDA/NVML/OpenCL inside every rank just to name OS
    // devices: slow (seconds on an 8-GPU node) and a second, uncontrolled GPU context.
    // The "pci" plugin (libpciaccess) leaks on every load and is slower; hwloc's Linux backend
    // finds the same devices, link speeds included, in sysfs.
    for (const char* plugin : {"cuda", "nvml", "opencl", "rsmi", "levelzero", "gl", "pci"})
        hwloc_topology_set_components(topology_, HWLOC_TOPOLOGY_COMPONENTS_FLAG_BLACKLIST, plugin);
    if (hwloc_topology_load(topology_) != 0) {
        hwloc_topology_destroy(topology_);
        throw std::runtime_error("hwloc_topology_load failed");
    }
}

HwlocTopology::~HwlocTopology() { hwloc_topology_destroy(topology_); }

}  // namespace shakedown
