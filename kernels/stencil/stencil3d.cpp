// `stencil3d`: a 7-point 3-D Jacobi heat-diffusion step over a global grid split across the
// ranks (MPI Cartesian decomposition, halo exchange every step), on the host through Kokkos
// or on the bound GPU through CUDA. Validated against the exact discrete solution; its rate
// is compared with the memory-bandwidth bound from a short triad measured in the same test, and
// its weak scaling (every rank alone, the halo exchange alone, both together) with the efficiency
// the same run's figures predict (stencil_scaling.hpp).
#include "gpu/gpu_facts.hpp"
#include "kernels/common/host_bound_size.hpp"
#include "kernels/common/kernel_backend.hpp"
#include "kernels/specs.hpp"
#include "kernels/stencil/halo_exchange.hpp"
#include "kernels/stencil/stencil_backend.hpp"
#include "kernels/stencil/stencil_geometry.hpp"
#include "kernels/stencil/stencil3d_names.hpp"
#include "kernels/stencil/stencil_scaling.hpp"
#include "kernels/stencil/stencil_update.hpp"
#include "kernels/stencil/stencil_validation.hpp"
#include "kernels/stream/stream_run.hpp"
#include "kokkos/kokkos_runtime.hpp"
#include "placement/placement.hpp"
#include "placement/placement_names.hpp"
#include "stats/summary.hpp"

#include "core/clock.hpp"
#include "core/errors.hpp"
#include "core/planted_delay.hpp"
#include "core/registry.hpp"
#include "core/run_context.hpp"

#include <fmt/format.h>

#include <chrono>
#include <thread>

namespace shakedown::kernels {
namespace {

constexpr std::int64_t host_local_n = 128;   // 2 fields of 17 MiB per rank: beyond a core's cache share
constexpr std::int64_t gpu_local_n = 512;    // 2 fields of 1 GiB: 30 x the L2, halo traffic small beside the sweep
constexpr std::int64_t gpu_triad_mib = 2048;
// Untimed steps before the timed ones (first launches load kernels, fill caches and TLBs);
// validation counts them: the field is checked after warmup + timed steps.
constexpr std::int64_t warmup_steps = 2;

bool has_neighbour(const StencilGeometry& geometry) {
    for (int face = 0; face < stencil_faces; ++face)
        if (geometry.neighbour(face) != MPI_PROC_NULL) return true;
    return false;
}

// The GPU launch shape asked for (check_stencil_parameters refused what cannot launch). The
// automatic tile height differs by backend: the Kokkos pairs march ran best at 32 x 4 on an H200
// (0.817 of the triad bound against 0.784-0.789 for 32 x 8, 64 x 4 and 128 x 2: bench/gpu/
// kokkos_probe.cpp), the native kernel at 32 x 8 (GpuStencilShape).
GpuStencilShape gpu_shape(const TestParams& params, KernelBackend backend) {
    GpuStencilShape defaults;
    if (backend == KernelBackend::kokkos) defaults.block_y = kokkos_gpu_block_y;
    const auto value = [&](const char* name, int fallback) {
        return static_cast<int>(params.optional_integer(name).value_or(fallback));
    };
    return {value("gpu_block_x", defaults.block_x), value("gpu_block_y", defaults.block_y),
            value("gpu_z_chunk", defaults.z_chunk), value("gpu_cells_per_thread", defaults.cells_per_thread)};
}

struct BandwidthBound {
    double triad_gbs = 0.0;
    double copy_gbs = 0.0;  // same run: the STREAM kernel with the stencil's 1:1 read/write mix
    std::string failure;
    std::int64_t triad_mib = 0;
};

// Both fields with their halos, in bytes (in floating point: an absurd size must not wrap around).
double field_bytes(const StencilGeometry& geometry) {
    double bytes = sizeof(double);
    for (const std::size_t extent : geometry.local()) bytes *= static_cast<double>(extent + 2);
    return bytes;
}

// The short triad (with the other STREAM kernels, so its arrays validate) on the same device; on
// the host as large as the two fields (kernels/common/host_bound_size.hpp).
BandwidthBound measure_bound(const RunContext& ctx, placement::Placement placement, const StencilGeometry& geometry) {
    const std::int64_t mib = ctx.params().optional_integer("triad_mib").value_or(
        placement == placement::Placement::gpu ? gpu_triad_mib : host_triad_mib_holding(2.0 * field_bytes(geometry)));
    StreamRunOptions options;
    options.elements = static_cast<std::size_t>(mib) * 1024 * 1024 / sizeof(double);
    options.repetitions = ctx.params().integer("triad_repetitions");
    auto backend = placement == placement::Placement::gpu ? make_cuda_stream(options.elements, *placement::usable_gpu(ctx))
                                               : make_host_stream(options.elements);
    const StreamMeasurement measured = measure_stream(*backend, options, ctx.comm());
    return {stats::median(measured.gbs.at(StreamKernel::triad)), stats::median(measured.gbs.at(StreamKernel::copy)),
            measured.failure, mib};
}

// The halo path this run takes. host and nccl as asked (nccl refused where it cannot work);
// auto takes nccl where it measured best (0.855-0.861 of the bound on 2 H200s against 0.77-0.86
// through host buffers): at least 2 ranks, each on a GPU of its own, NCCL built in; else host.
// Collective: every rank learns whether all ranks have their own GPU, so all take one path.
// The Kokkos device backend stages halos through the host (no device halo exchange): auto
// takes host there, and nccl asked for is refused by the backend with the reason.
HaloPath choose_halo_path(const RunContext& ctx, placement::Placement placement, KernelBackend backend) {
    // NCCL refuses two ranks of one communicator on one GPU ("Duplicate GPU"); ranks sharing a GPU
    // are waived (placement::gpu_request_waiver), so a GPU rank here owns its GPU unless the
    // session could not tell.
    const bool own_gpu = placement == placement::Placement::gpu && ctx.session().gpu_owner() == ctx.session().world_rank();
    int all_own_gpus = own_gpu ? 1 : 0;
    MPI_Allreduce(MPI_IN_PLACE, &all_own_gpus, 1, MPI_INT, MPI_MIN, ctx.comm());
    const std::optional<HaloPath> requested = parse_halo_path(ctx.params().text("halo_path"));
    if (!requested)
        return all_own_gpus != 0 && ctx.size() > 1 && device_halo_exchange_built() && backend == KernelBackend::native
                   ? HaloPath::nccl
                   : HaloPath::host;
    if (*requested == HaloPath::nccl && all_own_gpus == 0)  // every rank says why; none waits alone in NCCL's init
        throw InputError("stencil3d: halo_path nccl needs every rank on a GPU of its own (NCCL refuses ranks sharing a GPU); "
                         "use halo_path: host");
    return *requested;
}

// What one run does, from the parameters and where the rank runs.
struct StencilPlan {
    placement::Placement placement = placement::Placement::host;
    KernelBackend backend = KernelBackend::native;
    HaloPath halo_path = HaloPath::host;
    std::int64_t steps = 0;
    std::array<std::size_t, 3> global{};
    GpuStencilShape shape;
};

BackendChoice backend_choice(const RunContext& ctx, bool on_gpu) {
    return choose_backend(ctx.params().text("backend"), on_gpu, this_kokkos(), /*host_native=*/false,
                          "built without Kokkos (host stencil needs Kokkos)");
}

StencilPlan plan_stencil(const RunContext& ctx) {
    StencilPlan plan;
    plan.placement = placement::choose_placement(ctx, ctx.params().text(placement::names::device));
    plan.backend = backend_choice(ctx, plan.placement == placement::Placement::gpu).backend;
    plan.halo_path = choose_halo_path(ctx, plan.placement, plan.backend);
    plan.steps = ctx.params().integer("steps");
    const std::optional<std::int64_t> global_n = ctx.params().optional_integer("global_n");
    const std::int64_t local_n = ctx.params().optional_integer("local_n").value_or(
        plan.placement == placement::Placement::gpu ? gpu_local_n : host_local_n);
    const std::array<int, 3> dims = StencilGeometry::decomposition(ctx.size());
    for (int d = 0; d < 3; ++d) plan.global[d] = static_cast<std::size_t>(global_n ? *global_n : local_n * dims[d]);
    plan.shape = gpu_shape(ctx.params(), plan.backend);
    return plan;
}

// The backend with the initial field loaded and, on the nccl path, its device halo exchange set
// up (once per run, collective: NCCL over the test's ranks; the Cartesian communicator has them
// in ctx.comm()'s order, no reorder, so its neighbour ranks are the NCCL ranks).
std::unique_ptr<StencilBackend> prepared_backend(const RunContext& ctx, const StencilPlan& plan,
                                                 const StencilGeometry& geometry) {
    std::unique_ptr<StencilBackend> backend;
    if (plan.placement == placement::Placement::host)
        backend = make_host_stencil(geometry.local());
    else if (plan.backend == KernelBackend::kokkos)
        backend = make_kokkos_device_stencil(geometry.local(), *placement::usable_gpu(ctx));
    else
        backend = make_cuda_stencil(geometry.local(), *placement::usable_gpu(ctx));
    backend->set_gpu_shape(plan.shape);
    backend->load(geometry.initial_field());
    if (plan.halo_path == HaloPath::nccl) {
        std::array<int, 6> neighbour_ranks{};
        for (int face = 0; face < stencil_faces; ++face) neighbour_ranks[face] = geometry.neighbour(face);
        backend->use_device_halo_exchange(geometry.cart(), neighbour_ranks);
    }
    return backend;
}

struct StencilTiming {
    std::vector<StepTiming> rows;  // one per timed step, as the sample table records it
    double total_s = 0.0;
    double halo_s = 0.0;
    bool queued = false;        // rows are total / steps
    bool device_halos = false;  // halo time not separable from the steps
};

// Time = wall time from the barrier until every queued step is done. A GPU rank without
// neighbours queues all steps and waits once: its per-step rows are the total / steps (the host
// saw only launches); otherwise a row is the host time of that step, the last one including the
// wait for queued work. The device halo path queues everything too (the host never waits per
// step), so its halo work cannot be told apart from the host: rows are total / steps as well.
StencilTiming time_steps(const RunContext& ctx, StencilBackend& backend, HaloExchange& halos,
                         const StencilGeometry& geometry, std::int64_t steps) {
    StencilTiming timing;
    timing.device_halos = backend.exchanges_halos_on_device();
    timing.queued = backend.interior_runs_asynchronously() && (!has_neighbour(geometry) || timing.device_halos);
    std::vector<StepTiming> per_step;
    per_step.reserve(static_cast<std::size_t>(steps));
    MPI_Barrier(geometry.cart());
    const Stopwatch wall;
    for (std::int64_t step = 0; step < steps; ++step) {
        StepTiming one = halos.step(backend);
        if (const double delay = ctx.faults().delay_s(); delay > 0.0) {  // planted slowness
            std::this_thread::sleep_for(std::chrono::duration<double>(delay));
            one.compute_s += delay;
        }
        per_step.push_back(one);
    }
    const Stopwatch drain;
    backend.synchronize();
    per_step.back().compute_s += drain.seconds();
    timing.total_s = wall.seconds();
    for (const StepTiming& measured : per_step) {
        const StepTiming row = timing.queued ? StepTiming{0.0, timing.total_s / static_cast<double>(steps)} : measured;
        timing.halo_s += row.halo_s;
        timing.rows.push_back(row);
    }
    return timing;
}

// Rates against the bound measured in the same test.
void add_stencil_metrics(TestResult& result, const StencilGeometry& geometry, const StencilTiming& timing,
                         std::int64_t steps, const BandwidthBound& bound, double max_rel_error) {
    const double gcells = static_cast<double>(geometry.local_cells()) * static_cast<double>(steps) / timing.total_s * 1e-9;
    const double effective_gbs = gcells * stencil_bytes_per_cell;
    const double bound_gcells = bound.triad_gbs / stencil_bytes_per_cell;
    result.add_metric("stencil3d.gcells_per_s", gcells, bound_gcells);
    result.add_metric("stencil3d.effective_gbs", effective_gbs, bound.triad_gbs);
    if (!timing.device_halos)  // not measurable there (see time_steps): absent rather than a false 0
        result.add_metric("stencil3d.halo_time_share", timing.halo_s / timing.total_s);
    result.add_metric("stencil3d.bandwidth_bound_fraction", effective_gbs / bound.triad_gbs, 1.0);
    // The stencil reads as many bytes as it writes, like copy and unlike triad (2:1); where
    // writes cost more than reads (HBM) copy is the tighter, equally fair bound.
    result.add_metric("stencil3d.copy_bound_fraction", effective_gbs / bound.copy_gbs, 1.0);
    result.add_metric("stencil3d.max_rel_error", max_rel_error);
}

void record_stencil_parameters(TestResult& result, const RunContext& ctx, const StencilPlan& plan,
                               const StencilGeometry& geometry, const StencilBackend& backend, const StencilTiming& timing,
                               const BandwidthBound& bound, double max_rel_error, double tolerance) {
    const auto& global = plan.global;
    const auto& shape = plan.shape;
    result.parameters[placement::names::device] = std::string(to_string(plan.placement));
    result.parameters["backend"] = backend.name();
    result.parameters["global_cells"] = fmt::format("{}x{}x{}", global[0], global[1], global[2]);
    result.parameters["decomposition"] = fmt::format("{}x{}x{}", geometry.dims()[0], geometry.dims()[1], geometry.dims()[2]);
    result.parameters["local_cells"] = fmt::format("{}x{}x{}", geometry.local()[0], geometry.local()[1], geometry.local()[2]);
    result.parameters["steps_used"] = std::to_string(plan.steps);
    result.parameters["halo_path"] = std::string(to_string(plan.halo_path));
    result.parameters["halo_path_requested"] = ctx.params().text("halo_path");
    result.parameters["step_timing"] =
        timing.device_halos ? "queued with device halos (nccl): no host wait per step, time / steps, halo share not separable"
        : timing.queued     ? "queued: all steps launched, one wait, time / steps"
                            : "per step on the host, the last including the wait for queued work";
    result.parameters["warmup_steps"] = std::to_string(warmup_steps);
    if (plan.placement == placement::Placement::gpu)
        result.parameters["gpu_shape"] = fmt::format("{}x{} threads, {} x cell{} and {} planes per thread", shape.block_x,
                                                     shape.block_y, shape.cells_per_thread,
                                                     shape.cells_per_thread == 1 ? "" : "s", shape.z_chunk);
    result.parameters["bytes_per_cell"] = fmt::format("{}", stencil_bytes_per_cell);
    result.parameters["triad_gbs"] = fmt::format("{:.17g}", bound.triad_gbs);
    result.parameters["triad_mib_used"] = std::to_string(bound.triad_mib);
    result.parameters["copy_gbs"] = fmt::format("{:.17g}", bound.copy_gbs);
    result.parameters["max_rel_error"] = fmt::format("{:.17g}", max_rel_error);
    result.parameters["tolerance"] = fmt::format("{:.3g}", tolerance);
}

class Stencil3dTest final : public Test {
public:
    Stencil3dTest() : Test(stencil3d_spec()) {}
    std::optional<std::string> waiver(const RunContext& ctx) const override {
        const std::string& device = ctx.params().text(placement::names::device);
        if (auto gpu_waiver = placement::gpu_request_waiver(ctx, device)) return gpu_waiver;
        // GPU to GPU halos need a GPU: without one the test is waived, as device gpu is.
        if (ctx.params().text("halo_path") == "nccl" && !placement::usable_gpu(ctx)) return std::string(placement::no_cuda_device);
        const bool runs_on_host = device == "host" || (device == "auto" && !placement::usable_gpu(ctx));
        return backend_choice(ctx, !runs_on_host).waiver;
    }

    // plan -> bound -> scaling phases -> steps (timed) -> validation -> metrics and parameters.
    TestResult run(const RunContext& ctx) const override {
        const StencilPlan plan = plan_stencil(ctx);
        const StencilGeometry geometry(ctx.comm(), plan.global);
        check_memory(ctx, plan.placement, geometry);
        const BandwidthBound bound = measure_bound(ctx, plan.placement, geometry);
        const auto backend = prepared_backend(ctx, plan, geometry);
        HaloExchange halos(geometry);
        // The planted delay slows each update alone, as in the job phase.
        const ScalingPhases phases = measure_phases(*backend, halos, geometry, plan.steps, [&] {
            halos.update_alone(*backend);
            planted_delay(ctx.faults().delay_s());
        });
        backend->load(geometry.initial_field());  // the phases left the field unlike a step's: validated from the start
        for (std::int64_t step = 0; step < warmup_steps; ++step) halos.step(*backend);
        backend->synchronize();  // queued warm-up steps must not spill into the timed ones
        const StencilTiming timing = time_steps(ctx, *backend, halos, geometry, plan.steps);

        TestResult result;
        result.samples = SampleTable(stencil3d_spec().samples);
        for (std::size_t step = 0; step < timing.rows.size(); ++step) {
            const StepTiming& row = timing.rows[step];
            result.samples.add_row({static_cast<double>(step), row.halo_s, row.compute_s,
                                    static_cast<double>(geometry.local_cells()) / (row.halo_s + row.compute_s) * 1e-9});
        }
        if (ctx.faults().corrupt()) {
            const auto& local = geometry.local();
            backend->corrupt(local[0] / 2 + 1, local[1] / 2 + 1, local[2] / 2 + 1);
        }
        const StencilError error = stencil_error(geometry, backend->field(), warmup_steps + plan.steps);
        const double tolerance = stencil_tolerance(warmup_steps + plan.steps);
        if (!(error.max_relative <= tolerance))
            result.fail("stencil3d diverged from the exact solution: " + describe_failure(error, tolerance));
        if (!bound.failure.empty()) result.fail("bandwidth reference (STREAM) failed validation: " + bound.failure);
        add_stencil_metrics(result, geometry, timing, plan.steps, bound, error.max_relative);
        PhaseSteps job{.rows = {}, .step_s = timing.total_s / static_cast<double>(plan.steps)};
        for (const StepTiming& row : timing.rows) job.rows.push_back(row.halo_s + row.compute_s);
        add_scaling_metrics(result, stencil3d_names::figure_names, phases, job, ctx.comm());
        record_stencil_parameters(result, ctx, plan, geometry, *backend, timing, bound, error.max_relative, tolerance);
        return result;
    }

private:
    static void check_memory(const RunContext& ctx, placement::Placement placement, const StencilGeometry& geometry) {
        const double field_bytes = kernels::field_bytes(geometry);
        if (placement == placement::Placement::gpu) {
            const auto facts = gpu::query_gpu_facts(*placement::usable_gpu(ctx));
            if (2.0 * field_bytes > 0.8 * static_cast<double>(facts.memory_bytes))
                throw InputError(fmt::format("stencil3d: two fields of {:.1f} GiB do not fit on {} ({:.1f} GiB)",
                                             field_bytes / 1073741824.0, facts.name, facts.memory_bytes / 1073741824.0));
        }
        // Host: the device fields (on the host path) plus the initial and read-back copies.
        const double share = static_cast<double>(placement::host_memory_bytes(ctx)) / ctx.session().identity().local_size;
        const double needed = (placement == placement::Placement::gpu ? 2.0 : 4.0) * field_bytes;
        if (needed > 0.9 * share)
            throw InputError(fmt::format("stencil3d: {:.1f} GiB of fields per rank exceed 0.9 of this rank's {:.1f} GiB",
                                         needed / 1073741824.0, share / 1073741824.0));
    }
};

SHAKEDOWN_REGISTER_TEST(Stencil3dTest);

}  // namespace
}  // namespace shakedown::kernels
