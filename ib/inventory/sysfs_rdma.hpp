// What libibverbs does not say but sysfs does: port counters, GID types (RoCE v1/v2), the
// NUMA node and PCI address of an HCA, the physical port state as text. Every reader takes
// the sysfs root so tests can point it at a made-up tree.
#pragma once

#include "ib/verbs/verbs_api.hpp"

#include <filesystem>
#include <string>

namespace shakedown::ib {

inline const std::filesystem::path default_sysfs_infiniband = "/sys/class/infiniband";

// Every file of <root>/<device>/ports/<port>/counters and hw_counters that holds a number.
PortCounters read_port_counters(const std::filesystem::path& root, const std::string& device, int port);

// <root>/<device>/ports/<port>/gid_attrs/types/<index>: "IB/RoCE v1", "RoCE v2"; empty if absent.
std::string read_gid_type(const std::filesystem::path& root, const std::string& device, int port, int index);
std::string read_gid_netdev(const std::filesystem::path& root, const std::string& device, int port, int index);

// <root>/<device>/device/numa_node (-1 when absent) and the PCI address the device link names.
int read_numa_node(const std::filesystem::path& root, const std::string& device);
std::string read_pci_address(const std::filesystem::path& root, const std::string& device);

// NUMA node of a PCI device by bus id ("0000:19:00.0"), from /sys/bus/pci/devices; -1 if unknown.
int pci_numa_node(const std::string& pci_bus_id, const std::filesystem::path& pci_root = "/sys/bus/pci/devices");
// NUMA node of the CPU this thread runs on, from /sys/devices/system/cpu/cpuN/nodeM; -1 if unknown.
int current_cpu_numa_node(const std::filesystem::path& cpu_root = "/sys/devices/system/cpu");

}  // namespace shakedown::ib
