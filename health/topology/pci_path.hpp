// How two PCI devices are connected, in nvidia-smi's `topo -m` vocabulary, from their
// places in the sysfs device tree (/sys/bus/pci/devices/<id> links to
// /sys/devices/pci<domain>:<bus>/<root port>/<switch ports...>/<id>):
//   PIX  at most one PCIe switch between them (common ancestor inside a switch, one hop down each side)
//   PXB  several PCIe bridges, no host bridge
//   PHB  through the PCIe host bridge (the same root complex)
//   NODE between host bridges within one NUMA node
//   SYS  across NUMA nodes (the SMP interconnect)
// NV# (NVLink) comes from NVML, not from this tree.
#pragma once

#include <string>
#include <vector>

namespace shakedown::health {

// Ordered kinds, nearest first: PIX < PXB < PHB < NODE < SYS.
int path_rank(const std::string& kind);  // -1 for an unknown name; NV# ranks before PIX (0)

// "pci0000:00", "0000:00:01.0", ..., "<bus id>": the device's ancestry; empty when absent.
std::vector<std::string> pci_ancestry(const std::string& sys_root, const std::string& bus_id);

// The kind of path between two devices given their ancestries and NUMA nodes (-1: none).
std::string pci_path_kind(const std::vector<std::string>& a, const std::vector<std::string>& b, int numa_a, int numa_b);

}  // namespace shakedown::health
