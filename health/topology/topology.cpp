// `topology`: the GPU-to-GPU link matrix (NVML: NVLink count per pair, else the PCIe path
// kind), GPU-to-NUMA and GPU-to-NIC affinity (hwloc's PCI inventory and the sysfs device
// tree), every GPU's and NIC's PCIe generation and width against its maximum (a downtrained
// link is a FAIL; GPU generation is judged under load, see pcie_link.hpp), and an optional
// expected topology checked. Node-level parts run on the node leader; each rank checks the
// link of its own GPU while it drives traffic through it.
#include "placement/gpu_binding.hpp"
#include "comm/node_leaders.hpp"
#include "health/topology/expected_topology.hpp"
#include "health/specs.hpp"
#include "health/topology/gpu_matrix.hpp"
#include "health/topology/pci_path.hpp"
#include "health/topology/pcie_link.hpp"
#include "health/topology/pcie_traffic.hpp"

#include "core/registry.hpp"
#include "core/run_context.hpp"
#include "inventory/hwloc_topology.hpp"
#include "inventory/inventory_sections.hpp"
#include "placement/placement.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <fstream>
#include <set>

namespace shakedown::health {
namespace {

const std::set<std::string> gpu_classes{"vga", "3d_controller", "display", "accelerator"};
const std::set<std::string> nic_classes{"ethernet", "infiniband", "network"};
const std::set<std::string> judged_classes{"vga", "3d_controller", "display", "accelerator",
                                           "ethernet", "infiniband", "network", "nvme"};

struct PciDevice {
    std::string bus_id, kind;  // kind: the inventory's class name
    int numa = -1;
    std::vector<std::string> os_devices;
    std::string label() const {
        return os_devices.empty() ? fmt::format("{} {}", bus_id, kind)
                                  : fmt::format("{} {} {}", bus_id, kind, fmt::join(os_devices, "/"));
    }
};

std::vector<PciDevice> pci_devices(const RunContext& ctx) {
    nlohmann::json section;
    if (ctx.inventory().contains("pci")) {
        section = ctx.inventory()["pci"];
    } else {  // a context without inventory (unit tests): ask hwloc now
        const HwlocTopology topology;
        section = inventory_detail::pci_section(topology, 4096);
    }
    std::vector<PciDevice> devices;
    for (const auto& d : section.value("devices", nlohmann::json::array()))
        devices.push_back({placement::normalize_bus_id(d.value("bus_id", "")), d.value("class", "other"), d.value("numa_node", -1),
                           d.value("os_devices", std::vector<std::string>{})});
    return devices;
}

int sysfs_numa(const std::string& sys_root, const std::string& bus_id) {
    std::ifstream file(fmt::format("{}/bus/pci/devices/{}/numa_node", sys_root, bus_id));
    int node = -1;
    return file >> node ? node : -1;
}

double bus_number(const std::string& bus_id) {  // "dddd:bb:dd.f" as one number for the samples
    try {
        return static_cast<double>(std::stoul(bus_id.substr(0, 4), nullptr, 16) << 20 |
                                   std::stoul(bus_id.substr(5, 2), nullptr, 16) << 8 |
                                   std::stoul(bus_id.substr(8, 2), nullptr, 16) << 3 |
                                   std::stoul(bus_id.substr(11, 1), nullptr, 16));
    } catch (const std::exception&) {
        return -1.0;
    }
}

double or_nan(const std::optional<int>& value) { return value ? *value : std::numeric_limits<double>::quiet_NaN(); }

class TopologyTest final : public Test {
public:
    TopologyTest() : Test(topology_spec()) {}

    // `expected` is a YAML map in text: what does not parse is the driver's exit 2.
    void check_on_node(const TestParams& params) const override { (void)parse_expected_topology(params.text("expected")); }

    TestResult run(const RunContext& ctx) const override {
        TestResult result;
        const ExpectedTopology expected = parse_expected_topology(ctx.params().text("expected"));
        result.samples = SampleTable(topology_spec().samples);
        std::string nvml_why;
        const auto nvml = Nvml::load(Nvml::default_library, &nvml_why);
        if (!nvml) result.parameters["nvml"] = "not loaded: " + nvml_why;
        check_bound_gpu(ctx, nvml.get(), expected, result);

        const Communicator leaders = comm::leaders_of(ctx);
        if (!leaders.valid()) return result;
        const auto devices = pci_devices(ctx);
        check_pci_links(ctx, devices, expected, result);
        if (nvml) check_gpus(ctx, *nvml, devices, expected, result);
        else if (expected.gpus || expected.gpu_pairs || expected.gpu_nic)
            result.fail("topology: GPU expectations given but NVML is not available: " + nvml_why);
        return result;
    }

private:
    // The bound GPU's link through NVML while traffic flows (generation and width both judged).
    static void check_bound_gpu(const RunContext& ctx, const Nvml* nvml, const ExpectedTopology& expected,
                                TestResult& result) {
        const auto gpu = placement::usable_gpu(ctx);
        if (!gpu) {
            result.parameters["bound_gpu"] = std::string(placement::no_cuda_device) + ": GPU link parts skipped on this rank";
            return;
        }
        const auto index = placement::nvml_index_for(ctx.inventory(), *gpu);
        const auto device = nvml != nullptr && index ? nvml->device(*index) : std::nullopt;
        if (!device) {
            result.parameters["bound_gpu"] = "NVML does not name this GPU: link not checked";
            return;
        }
        NvmlPcieLink link;
        const bool loaded = ctx.params().flag("load_gpu") && pcie_traffic_built();
        if (loaded) with_pcie_traffic(*gpu, [&] { link = device->pcie_link(); });
        else link = device->pcie_link();
        auto as_int = [](std::optional<unsigned> v) { return v ? std::optional<int>(static_cast<int>(*v)) : std::nullopt; };
        PcieLinkState state;  // NVML speaks generations; the judgement speaks GT/s
        const auto gts = [](std::optional<unsigned> gen) {
            return gen ? pcie_rate_gts(static_cast<int>(*gen)) : std::nullopt;
        };
        state.speed_current_gts = gts(link.generation_current);
        state.speed_max_gts = gts(link.generation_max);
        state.width_current = as_int(link.width_current);
        state.width_max = as_int(link.width_max);
        const std::string problem = downtrained(state, !loaded);
        const std::string bus = placement::pci_bus_id_for(ctx.inventory(), *gpu).value_or("?");
        result.samples.add_row({1.0, bus_number(bus), or_nan(as_int(link.generation_current)),
                                or_nan(as_int(link.generation_max)), or_nan(state.width_current), or_nan(state.width_max),
                                -1.0, problem.empty() ? 0.0 : 1.0});
        result.parameters["bound_gpu_pcie"] =
            fmt::format("GPU{} {}: Gen{} x{} (max Gen{} x{}){}", *gpu, bus, or_nan(as_int(link.generation_current)),
                        or_nan(state.width_current), or_nan(as_int(link.generation_max)), or_nan(state.width_max),
                        loaded ? " under load" : " at rest (generation not judged)");
        if (!problem.empty()) result.fail(fmt::format("topology: GPU{} ({}) PCIe link downtrained: {}", *gpu, bus, problem));
        if (link.generation_current && link.generation_max)
            result.add_metric("topology.gpu_pcie_generation", *link.generation_current,
                              static_cast<double>(*link.generation_max));
        if (link.width_current && link.width_max)
            result.add_metric("topology.gpu_pcie_width", *link.width_current,
                              static_cast<double>(*link.width_max));
        if (loaded && expected.pcie_gen && link.generation_current && static_cast<int>(*link.generation_current) < *expected.pcie_gen)
            result.fail(fmt::format("topology: GPU{} runs PCIe Gen{}, expected Gen{}", *gpu, *link.generation_current, *expected.pcie_gen));
        if (expected.pcie_width && link.width_current && static_cast<int>(*link.width_current) < *expected.pcie_width)
            result.fail(fmt::format("topology: GPU{} runs PCIe x{}, expected x{}", *gpu, *link.width_current, *expected.pcie_width));
    }

    // Every GPU, NIC and NVMe link as sysfs shows it. GPU generations may idle here.
    static void check_pci_links(const RunContext& ctx, const std::vector<PciDevice>& devices,
                                const ExpectedTopology& expected, TestResult& result) {
        const std::string& sys_root = ctx.params().text("sys_root");
        std::vector<std::string> listing;
        int checked = 0, unknown = 0, downtrained_count = 0;
        for (const auto& device : devices) {
            if (!judged_classes.count(device.kind)) continue;
            const bool gpu = gpu_classes.count(device.kind) > 0;
            const PcieLinkState link = read_pcie_link(sys_root, device.bus_id);
            const int numa = device.numa >= 0 ? device.numa : sysfs_numa(sys_root, device.bus_id);
            if (!link.known()) {
                ++unknown;
                listing.push_back(fmt::format("{} numa {}: link not reported by sysfs", device.label(), numa));
                continue;
            }
            ++checked;
            std::string problem = downtrained(link, gpu);
            if (!problem.empty()) ++downtrained_count;
            const auto gen = link.generation_current(), gen_max = link.generation_max();
            listing.push_back(fmt::format("{} numa {}: Gen{} x{} (max Gen{} x{}){}", device.label(), numa, or_nan(gen),
                                          *link.width_current, or_nan(gen_max), *link.width_max,
                                          problem.empty() ? "" : " DOWNTRAINED " + problem));
            result.samples.add_row({0.0, bus_number(device.bus_id), or_nan(gen), or_nan(gen_max),
                                    static_cast<double>(*link.width_current), static_cast<double>(*link.width_max),
                                    static_cast<double>(numa), problem.empty() ? 0.0 : 1.0});
            if (!problem.empty())
                result.fail(fmt::format("topology: {} PCIe link downtrained: {}", device.label(), problem));
            if (!gpu && expected.pcie_gen && gen && *gen < *expected.pcie_gen)
                result.fail(fmt::format("topology: {} runs PCIe Gen{}, expected Gen{}", device.label(), *gen, *expected.pcie_gen));
            if (expected.pcie_width && *link.width_current < *expected.pcie_width)
                result.fail(fmt::format("topology: {} runs PCIe x{}, expected x{}", device.label(), *link.width_current,
                                        *expected.pcie_width));
        }
        result.parameters["pci_links"] = fmt::format("{}", fmt::join(listing, "; "));
        result.add_metric("topology.pci_links_checked_count", checked);
        result.add_metric("topology.pci_links_unreported_count", unknown);
        result.add_metric("topology.downtrained_links_count", downtrained_count);
    }

    // The NVML GPU matrix, each GPU's NUMA node and nearest NIC.
    static void check_gpus(const RunContext& ctx, const Nvml& nvml, const std::vector<PciDevice>& devices,
                           const ExpectedTopology& expected, TestResult& result) {
        const std::string& sys_root = ctx.params().text("sys_root");
        const GpuMatrix matrix = gpu_matrix(nvml);
        const auto count = static_cast<int>(matrix.gpus.size());
        result.add_metric("topology.gpu_count", count,
                          expected.gpus ? std::optional<double>(*expected.gpus) : std::nullopt);
        if (expected.gpus && count != *expected.gpus)
            result.fail(fmt::format("topology: {} GPUs found, expected {}", count, *expected.gpus));
        result.parameters["gpu_pairs"] = describe_pairs(matrix);
        if (matrix.nvswitch_links > 0) result.parameters["nvswitch_links"] = std::to_string(matrix.nvswitch_links);

        std::optional<unsigned> fewest_nvlinks;
        for (int i = 0; i < count; ++i)
            for (int j = i + 1; j < count; ++j) {
                const std::string& label = matrix.labels[i][j];
                const unsigned links = label.rfind("NV", 0) == 0 ? static_cast<unsigned>(std::stoul(label.substr(2))) : 0;
                fewest_nvlinks = std::min(fewest_nvlinks.value_or(links), links);
                if (expected.gpu_pairs && !pair_meets(label, *expected.gpu_pairs))
                    result.fail(fmt::format("topology: GPU{}-GPU{} linked by {}, expected {}", matrix.gpus[i].nvml_index,
                                            matrix.gpus[j].nvml_index, label, *expected.gpu_pairs));
            }
        if (fewest_nvlinks) result.add_metric("topology.nvlinks_min_per_pair_count", *fewest_nvlinks);

        std::vector<PciDevice> nics;
        for (const auto& device : devices)
            if (nic_classes.count(device.kind)) nics.push_back(device);
        std::vector<std::string> numa_listing, nic_listing;
        for (const auto& gpu : matrix.gpus) {
            int numa = sysfs_numa(sys_root, gpu.bus_id);
            for (const auto& device : devices)
                if (device.bus_id == gpu.bus_id && device.numa >= 0) numa = device.numa;
            numa_listing.push_back(fmt::format("GPU{}:{}", gpu.nvml_index, numa));
            const auto gpu_path = pci_ancestry(sys_root, gpu.bus_id);
            std::string nearest = "none", nearest_kind = "SYS";
            for (const auto& nic : nics) {
                const std::string kind =
                    pci_path_kind(gpu_path, pci_ancestry(sys_root, nic.bus_id), numa,
                                  nic.numa >= 0 ? nic.numa : sysfs_numa(sys_root, nic.bus_id));
                if (nearest == "none" || path_rank(kind) < path_rank(nearest_kind)) {
                    nearest = nic.label();
                    nearest_kind = kind;
                }
            }
            nic_listing.push_back(fmt::format("GPU{}:{}", gpu.nvml_index, nearest == "none" ? "no NIC" : nearest + " (" + nearest_kind + ")"));
            if (expected.gpu_nic && (nearest == "none" || path_rank(nearest_kind) > path_rank(*expected.gpu_nic)))
                result.fail(fmt::format("topology: GPU{} has no NIC at {} or nearer (nearest: {})", gpu.nvml_index,
                                        *expected.gpu_nic, nearest == "none" ? "none" : nearest + " " + nearest_kind));
        }
        result.parameters["gpu_numa"] = fmt::format("{}", fmt::join(numa_listing, " "));
        result.parameters["gpu_nearest_nic"] = fmt::format("{}", fmt::join(nic_listing, " "));
    }
};

SHAKEDOWN_REGISTER_TEST(TopologyTest);

}  // namespace
}  // namespace shakedown::health
