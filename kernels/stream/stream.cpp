// `stream`: copy, scale, add, triad and dot on this rank's memory (the host through Kokkos,
// or the bound GPU through CUDA, or through Kokkos with `backend: kokkos`), repeated, timed
// per kernel, validated against gold values.
// Every rank measures at the same time (a barrier starts each kernel), as a job would use
// the node: the per-rank figures add up to what the node delivers.
#include "hardware/gpu_specs.hpp"
#include "kernels/common/kernel_backend.hpp"
#include "kernels/specs.hpp"
#include "kernels/stream/stream_backend.hpp"
#include "kernels/stream/stream_kernels.hpp"
#include "kernels/stream/stream_run.hpp"
#include "kokkos/kokkos_runtime.hpp"
#include "placement/placement.hpp"
#include "placement/placement_names.hpp"
#include "stats/summary.hpp"

#include "core/errors.hpp"
#include "core/registry.hpp"
#include "core/run_context.hpp"

#include <fmt/format.h>


namespace shakedown::kernels {
namespace {

constexpr std::int64_t host_default_mib = 64;    // far above any L3 slice one rank sees
constexpr std::int64_t gpu_default_mib = 4096;  // 2^29 doubles: BabelStream's default, far above L2

struct StreamPlan {
    placement::Placement placement = placement::Placement::host;
    KernelBackend backend = KernelBackend::native;
    std::size_t elements = 0;
    std::int64_t repetitions = 0;
    int host_ranks = 0;  // ranks of this test on the node measuring the host (the nominal is shared by them)
};

constexpr std::int64_t elements_per_mib = 1024 * 1024 / sizeof(double);

// Elements per array: an exact length (odd ones included) overrides the MiB, which shows
// the kernels' tails are done; auto MiB takes the placement's default.
std::size_t elements_asked(const TestParams& params, placement::Placement placement) {
    if (const auto exact = params.optional_integer("array_elements")) return static_cast<std::size_t>(*exact);
    const std::int64_t mib = params.optional_integer("array_mib").value_or(
        placement == placement::Placement::gpu ? gpu_default_mib : host_default_mib);
    return static_cast<std::size_t>(mib * elements_per_mib);
}

// The plain host loops are built only without Kokkos (the host path wherever Kokkos exists).
BackendChoice backend_choice(const RunContext& ctx, bool on_gpu) {
    return choose_backend(ctx.params().text("backend"), on_gpu, this_kokkos(), /*host_native=*/!kokkos::built(),
                          "built without Kokkos");
}

StreamPlan plan_from(const RunContext& ctx) {
    StreamPlan plan;  // parameter values were checked in check_parameters
    plan.placement = placement::choose_placement(ctx, ctx.params().text(placement::names::device));
    plan.backend = backend_choice(ctx, plan.placement == placement::Placement::gpu).backend;
    plan.elements = elements_asked(ctx.params(), plan.placement);
    plan.host_ranks = placement::ranks_sharing_this_node(ctx, plan.placement == placement::Placement::host);

    const std::uint64_t needed = 3ull * plan.elements * sizeof(double);
    const double needed_mib = static_cast<double>(plan.elements * sizeof(double)) / 1048576.0;
    if (plan.placement == placement::Placement::host) {
        const std::uint64_t share = placement::host_memory_bytes(ctx) / static_cast<std::uint64_t>(ctx.session().identity().local_size);
        if (needed > share)
            throw InputError(fmt::format("stream: {:.0f} MiB per array needs {:.1f} GiB per rank; this node has {:.1f} GiB per rank",
                                         needed_mib, needed / 1073741824.0, share / 1073741824.0));
    } else {
        const auto facts = gpu::query_gpu_facts(*placement::usable_gpu(ctx));
        if (needed > facts.memory_bytes)
            throw InputError(fmt::format("stream: {:.0f} MiB per array needs {:.1f} GiB; {} has {:.1f} GiB", needed_mib,
                                         needed / 1073741824.0, facts.name, facts.memory_bytes / 1073741824.0));
    }

    plan.repetitions = ctx.params().integer("repetitions");
    return plan;
}

struct Nominal {
    std::optional<double> gbs;
    std::string source;
};

Nominal nominal_for(const RunContext& ctx, const StreamPlan& plan) {
    if (plan.placement == placement::Placement::gpu) {
        const hardware::GpuNominal gpu = hardware::gpu_nominal(gpu::query_gpu_facts(*placement::usable_gpu(ctx)));
        return {gpu.memory_gbs, gpu.derived ? gpu.source : "spec table: " + gpu.part};
    }
    // The host figure is per node and shared by the ranks measuring the host on it.
    const auto node_gbs = ctx.params().optional_real("nominal_gbs");
    if (!node_gbs) return {std::nullopt, "unknown (set params.stream.nominal_gbs)"};
    return {*node_gbs / std::max(1, plan.host_ranks),
            fmt::format("config: nominal_gbs per node / {} ranks measuring its memory", plan.host_ranks)};
}

class StreamTest final : public Test {
public:
    StreamTest() : Test(stream_spec()) {}
    std::optional<std::string> waiver(const RunContext& ctx) const override {
        const std::string& device = ctx.params().text(placement::names::device);
        if (auto gpu_waiver = placement::gpu_request_waiver(ctx, device)) return gpu_waiver;
        const bool on_gpu = device == "gpu" || (device == "auto" && placement::usable_gpu(ctx));
        return backend_choice(ctx, on_gpu).waiver;
    }

    TestResult run(const RunContext& ctx) const override {
        const StreamPlan plan = plan_from(ctx);
        std::unique_ptr<StreamBackend> backend;
        if (plan.placement == placement::Placement::host)
            backend = make_host_stream(plan.elements);
        else if (plan.backend == KernelBackend::kokkos)
            backend = make_kokkos_device_stream(plan.elements, *placement::usable_gpu(ctx));
        else
            backend = make_cuda_stream(plan.elements, *placement::usable_gpu(ctx));
        StreamRunOptions options;
        options.elements = plan.elements;
        options.repetitions = plan.repetitions;
        options.delay_s = ctx.faults().delay_s();
        options.corrupt = ctx.faults().corrupt();
        StreamMeasurement measurement = measure_stream(*backend, options, ctx.comm());

        TestResult result;
        if (!measurement.failure.empty()) result.fail(measurement.failure);
        result.samples = std::move(measurement.samples);
        const Nominal nominal = nominal_for(ctx, plan);
        for (const auto& kernel : stream_kernel_table) {
            const stats::Summary spread = stats::summarize(measurement.gbs[kernel.id]);
            result.add_metric(fmt::format("stream.{}_gbs", kernel.name), spread.median, nominal.gbs);
            result.add_metric(fmt::format("stream.{}_max_gbs", kernel.name), spread.max, nominal.gbs);
        }
        result.parameters[placement::names::device] = std::string(to_string(plan.placement));
        result.parameters["backend"] = backend->name();
        result.parameters["elements"] = std::to_string(plan.elements);
        result.parameters["array_bytes"] = std::to_string(plan.elements * sizeof(double));
        result.parameters["repetitions_used"] = std::to_string(plan.repetitions);
        result.parameters["nominal_source"] = nominal.source;
        result.parameters["kernel_ids"] = "0 copy, 1 scale, 2 add, 3 triad, 4 dot";
        for (const auto& [key, value] : backend->launch_parameters()) result.parameters[key] = value;
        return result;
    }
};

SHAKEDOWN_REGISTER_TEST(StreamTest);

}  // namespace
}  // namespace shakedown::kernels
