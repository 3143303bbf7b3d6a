// PCIe link state of any PCI device from sysfs (current_link_speed/width and
// max_link_speed/width under /sys/bus/pci/devices/<bus id>/), and the judgement of a link
// against its maximum.
//
// Rule (docs/health.md): a link narrower than its maximum width is always a FAIL. A link
// slower than its maximum generation is a FAIL too, except for a GPU at rest: GPUs train
// their link down to save power when idle, so a GPU's generation is judged only while the
// test drives traffic through it (or when NVML says it is not idle).
#pragma once

#include <optional>
#include <string>

namespace shakedown::health {

struct PcieLinkState {
    std::optional<double> speed_current_gts;
    std::optional<double> speed_max_gts;
    std::optional<int> width_current;
    std::optional<int> width_max;

    std::optional<int> generation_current() const;
    std::optional<int> generation_max() const;
    bool known() const { return speed_current_gts && speed_max_gts && width_current && width_max; }
};

// PCIe generation of a per-lane rate: 2.5 GT/s = 1, 5 = 2, 8 = 3, 16 = 4, 32 = 5, 64 = 6, 128 = 7.
std::optional<int> pcie_generation(double gts);

// Per-lane rate of a generation (Gen5 = 32 GT/s); nothing for an unknown generation.
std::optional<double> pcie_rate_gts(int generation);

// Nominal (raw signalling) rate of one direction of a link in GB/s: GT/s x lanes / 8, so
// Gen5 x16 = 64 GB/s as datasheets and the anchors quote it. Line encoding (128b/130b) and
// packet headers take their share: a healthy Gen5 x16 GPU copies at about 0.86 of it.
double pcie_nominal_gbs(int generation, int width);

// Reads the four files; absent or "Unknown" ones (virtual devices) stay empty.
PcieLinkState read_pcie_link(const std::string& sys_root, const std::string& bus_id);

// "x8 of x16" / "Gen3 of Gen5" when downtrained, empty when fine or not known.
// `generation_may_idle`: a drop in generation alone is accepted (an idle GPU).
std::string downtrained(const PcieLinkState& link, bool generation_may_idle);

}  // namespace shakedown::health
