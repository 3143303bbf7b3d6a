// What the buyer was promised, as a YAML map in the `expected` parameter, e.g.
//   "{gpus: 2, gpu_pairs: NV18, gpu_nic: PIX, pcie_gen: 5, pcie_width: 16}"
//   gpus        GPUs per node (NVML's count)
//   gpu_pairs   the link every GPU pair must have: NV<n> (exactly n NVLinks), NV (any NVLink),
//               or a PCIe kind (PIX, PXB, PHB, NODE, SYS): that or nearer
//   gpu_nic     every GPU has a NIC at this PCIe distance or nearer (PIX: on its switch)
//   pcie_gen    minimum PCIe generation of every GPU and NIC link (GPUs: under load)
//   pcie_width  minimum PCIe width of every GPU and NIC link
#pragma once

#include <optional>
#include <string>

namespace shakedown::health {

struct ExpectedTopology {
    std::optional<int> gpus;
    std::optional<std::string> gpu_pairs;
    std::optional<std::string> gpu_nic;
    std::optional<int> pcie_gen;
    std::optional<int> pcie_width;
    bool empty() const { return !gpus && !gpu_pairs && !gpu_nic && !pcie_gen && !pcie_width; }
};

// Throws InputError naming the problem: not YAML, not a map, an unknown key, a bad value.
ExpectedTopology parse_expected_topology(const std::string& text);

// Does a measured pair label satisfy the expected one?
bool pair_meets(const std::string& measured, const std::string& expected);

}  // namespace shakedown::health
