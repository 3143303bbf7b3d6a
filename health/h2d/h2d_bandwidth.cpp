// `h2d_bandwidth`: pinned host-to-device and device-to-host bandwidth of the bound GPU, with
// the host memory on the GPU's own NUMA node and on another one, every copy checked on the
// way back; compared with the PCIe link's nominal rate and with the other GPUs of the job
// (a GPU well below its peers is flagged).
#include "placement/gpu_binding.hpp"
#include "health/h2d/host_device_copy.hpp"
#include "health/specs.hpp"
#include "health/topology/pcie_link.hpp"

#include "core/errors.hpp"
#include "core/registry.hpp"
#include "core/run_context.hpp"
#include "placement/placement.hpp"
#include "stats/summary.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace shakedown::health {
namespace {

constexpr std::uint64_t mib = 1024 * 1024;

// Raw nominal of the GPU's link at its maximum generation and width (NVML via the inventory).
std::optional<double> link_nominal_gbs(const nlohmann::json& inventory, int ordinal, std::string& detail) {
    if (!inventory.contains("gpus")) return std::nullopt;
    for (const auto& gpu : inventory["gpus"]) {
        if (gpu.value("index", -1) != ordinal || !gpu.contains("nvml")) continue;
        const auto& nvml = gpu["nvml"];
        if (!nvml.value("pcie_generation_max", nlohmann::json()).is_number() ||
            !nvml.value("pcie_width_max", nlohmann::json()).is_number())
            return std::nullopt;
        const int generation = nvml["pcie_generation_max"].get<int>(), width = nvml["pcie_width_max"].get<int>();
        detail = fmt::format("PCIe Gen{} x{} raw rate", generation, width);
        return pcie_nominal_gbs(generation, width);
    }
    return std::nullopt;
}

// Another NUMA node with memory, for the cross-node figure.
std::optional<int> other_numa_node(const nlohmann::json& inventory, int local) {
    if (!inventory.contains("memory") || !inventory["memory"].contains("numa")) return std::nullopt;
    for (const auto& node : inventory["memory"]["numa"])
        if (node.value("index", -1) != local && node.value("bytes", 0ULL) > 0) return node["index"].get<int>();
    return std::nullopt;
}

class H2dBandwidthTest final : public Test {
public:
    H2dBandwidthTest() : Test(h2d_bandwidth_spec()) {}

    std::optional<std::string> waiver(const RunContext& ctx) const override {
        return placement::gpu_only_waiver(ctx);
    }

    TestResult run(const RunContext& ctx) const override {
        TestResult result;
        const int gpu = *placement::usable_gpu(ctx);
        CopyRequest request;
        request.device = gpu;
        request.bytes = static_cast<std::uint64_t>(ctx.params().integer("size_mib")) * mib;
        request.repetitions = static_cast<int>(ctx.params().integer("repetitions"));
        request.numa_node = placement::gpu_numa_node(ctx.inventory(), gpu);
        request.plant_corruption = ctx.faults().corrupt();
        result.parameters["size_mib_used"] = std::to_string(request.bytes / mib);
        result.parameters["repetitions_used"] = std::to_string(request.repetitions);
        result.parameters["gpu_numa_node"] = std::to_string(request.numa_node);

        std::string nominal_detail = "unknown";
        const auto nominal = link_nominal_gbs(ctx.inventory(), gpu, nominal_detail);
        result.parameters["nominal_source"] = nominal_detail;
        result.samples = SampleTable(h2d_bandwidth_spec().samples);

        const CopyFigures local = measure_host_device_copies(request);
        record(result, local, 0, "local NUMA node");
        result.parameters["local_memory_on_numa"] = local.memory_found_on;
        const double h2d = stats::median(local.h2d_gbs), d2h = stats::median(local.d2h_gbs);
        result.add_metric("h2d_bandwidth.h2d_gbs", h2d, nominal);
        result.add_metric("h2d_bandwidth.d2h_gbs", d2h, nominal);
        judge_nominal(ctx, result, h2d, d2h, nominal);

        const auto remote_node = request.numa_node >= 0 ? other_numa_node(ctx.inventory(), request.numa_node) : std::nullopt;
        if (ctx.params().flag("cross_numa") && remote_node) {
            request.numa_node = *remote_node;
            request.plant_corruption = false;
            const CopyFigures remote = measure_host_device_copies(request);
            record(result, remote, 1, "remote NUMA node");
            result.parameters["remote_memory_on_numa"] = remote.memory_found_on;
            result.add_metric("h2d_bandwidth.h2d_remote_numa_gbs", stats::median(remote.h2d_gbs), nominal);
            result.add_metric("h2d_bandwidth.d2h_remote_numa_gbs", stats::median(remote.d2h_gbs), nominal);
        } else {
            result.parameters["remote_numa"] = "skipped: one NUMA node, or the GPU's node unknown";
        }
        judge_peers(ctx, result, gpu, h2d, d2h);
        return result;
    }

private:
    static void record(TestResult& result, const CopyFigures& figures, int placement, const char* name) {
        for (std::size_t rep = 0; rep < figures.h2d_gbs.size(); ++rep)
            result.samples.add_row({static_cast<double>(placement), static_cast<double>(rep), figures.h2d_gbs[rep],
                                    figures.d2h_gbs[rep]});
        if (!figures.validation_error.empty())
            result.fail(fmt::format("h2d_bandwidth ({}): data changed in the round trip: {}", name, figures.validation_error));
    }

    static void judge_nominal(const RunContext& ctx, TestResult& result, double h2d, double d2h, std::optional<double> nominal) {
        if (!nominal || *nominal <= 0.0) return;
        const double floor = ctx.params().real("min_fraction_of_nominal");
        for (const auto& [name, value] : {std::pair{"host-to-device", h2d}, std::pair{"device-to-host", d2h}})
            if (value < floor * *nominal)
                result.fail(fmt::format("h2d_bandwidth: {} {:.1f} GB/s is {:.2f} of the link's {:.0f} GB/s (floor {:.2f})", name,
                                        value, value / *nominal, *nominal, floor));
    }

    // Every GPU of the job against the median: one slow slot or riser stands out.
    static void judge_peers(const RunContext& ctx, TestResult& result, int gpu, double h2d, double d2h) {
        const int size = ctx.size();
        std::vector<double> all_h2d(static_cast<std::size_t>(size)), all_d2h(static_cast<std::size_t>(size));
        MPI_Allgather(&h2d, 1, MPI_DOUBLE, all_h2d.data(), 1, MPI_DOUBLE, ctx.comm());
        MPI_Allgather(&d2h, 1, MPI_DOUBLE, all_d2h.data(), 1, MPI_DOUBLE, ctx.comm());
        if (size < 2) return;
        const double fraction = ctx.params().real("peer_fraction");
        const double median_h2d = stats::median(all_h2d), median_d2h = stats::median(all_d2h);
        if (h2d < fraction * median_h2d || d2h < fraction * median_d2h)
            result.fail(fmt::format("h2d_bandwidth: GPU{} on {} copies at {:.1f}/{:.1f} GB/s (H2D/D2H), below {:.2f} of the job's "
                                    "median {:.1f}/{:.1f}",
                                    gpu, ctx.session().identity().node_name, h2d, d2h, fraction, median_h2d, median_d2h));
    }
};

SHAKEDOWN_REGISTER_TEST(H2dBandwidthTest);

}  // namespace
}  // namespace shakedown::health
