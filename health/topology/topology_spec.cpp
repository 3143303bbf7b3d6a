#include "health/specs.hpp"

#include "core/registry.hpp"

namespace shakedown::health {

const TestSpec& topology_spec() {
    static const TestSpec spec{
        .key = "topology",
        .description = "GPU link matrix (NV#/PIX/PXB/PHB/NODE/SYS), GPU-NUMA-NIC affinity, PCIe gen/width vs max, expected topology",
        .suites = {"quick", "full"},
        .parameters =
            {
                ParamSpec::text("expected", "",
                                "expected topology as a YAML map, e.g. '{gpus: 2, gpu_pairs: NV18, gpu_nic: PIX, pcie_gen: 5, "
                                "pcie_width: 16}' (empty: none)"),
                ParamSpec::text("sys_root", "/sys", "sysfs root (tests point it at a made-up tree)"),
                ParamSpec::flag("load_gpu", true, "drive PCIe traffic while reading the bound GPU's link"),
            },
        .metrics =
            {
                {"topology.gpu_pcie_generation", "gen", Better::higher, "the bound GPU's link generation under load, nominal: its maximum"},
                {"topology.gpu_pcie_width", "lanes", Better::higher, "the bound GPU's link width under load, nominal: its maximum"},
                {"topology.pci_links_checked_count", "count", Better::higher, "PCIe links read"},
                {"topology.{pci_links_unreported_count,downtrained_links_count}", "count", Better::lower,
                 "links without a reading, links below their maximum"},
                {"topology.gpu_count", "count", Better::higher, "GPUs found, nominal: the expected count"},
                {"topology.nvlinks_min_per_pair_count", "count", Better::higher, "fewest NVLinks between two GPUs"},
            },
        .samples = {{"source", "0=sysfs,1=nvml_bound_gpu"}, {"bus", "domain<<20|bus<<8|dev<<3|fn"}, {"generation_current", "gen"}, {"generation_max", "gen"}, {"width_current", "lanes"}, {"width_max", "lanes"}, {"numa_node", "index"}, {"downtrained", "bool"}},
        .default_deadline_s = 120.0,
    };
    return spec;
}

SHAKEDOWN_REGISTER_SPEC(topology_spec);

}  // namespace shakedown::health
