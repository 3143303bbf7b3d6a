// `cg_fp64`: FP64 conjugate gradient on the 3-D 7-point Laplacian over stencil3d's domain
// decomposition, the memory-bound, latency-sensitive solver pattern of implicit codes (HPCG's
// class): per iteration one halo exchange with a matrix-free SpMV, two MPI_Allreduce and three
// vector updates. Solved from x0 = 0 for b = A x* with a manufactured x*; the error and the
// recomputed true residual are judged against the CG bound from the operator's condition number
// and the iterations (cg_math.hpp). The rate is compared with the triad measured in the same
// test, as stencil3d does, and its weak scaling (every rank alone, the halo exchange and the
// allreduces alone, all together in the solves) with the efficiency the same run's figures
// predict (kernels/stencil/stencil_scaling.hpp).
#include "kernels/cg/cg_backend.hpp"
#include "kernels/cg/cg_fp64_names.hpp"
#include "kernels/cg/cg_kernel_timing.hpp"
#include "kernels/common/host_bound_size.hpp"
#include "kernels/cg/cg_math.hpp"
#include "kernels/cg/cg_solver.hpp"
#include "kernels/specs.hpp"
#include "kernels/stencil/halo_exchange.hpp"
#include "kernels/stencil/stencil_geometry.hpp"
#include "kernels/stencil/stencil_scaling.hpp"
#include "kernels/stream/stream_backend.hpp"
#include "kernels/stream/stream_run.hpp"
#include "placement/placement_names.hpp"

#include "core/errors.hpp"
#include "core/planted_delay.hpp"
#include "core/registry.hpp"
#include "core/run_context.hpp"
#include "gpu/gpu_facts.hpp"
#include "placement/placement.hpp"
#include "stats/summary.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <exception>

namespace shakedown::kernels {
namespace {

using placement::Placement;

constexpr std::int64_t host_local_n = 32;   // 6 vectors of 0.3 MiB per rank: CI-sized, a solve well under a second
constexpr std::int64_t gpu_local_n = 256;   // 6 vectors of 134 MiB: 16 x an H200's L2; ~2000 iterations, ~1 s a solve
constexpr std::int64_t gpu_triad_mib = 2048;
constexpr double iterations_target = 1e-8;  // auto iterations: where the bound reaches this
constexpr int vectors = 6;                  // x*, b, x, r, p, q

struct CgPlan {
    Placement placement = Placement::host;
    HaloPath halo_path = HaloPath::host;
    std::array<std::size_t, 3> global{};
    cg::Spectrum spectrum;
    std::int64_t iterations = 0;
    double tolerance = 0.0;
    std::int64_t repetitions = 0;
};

// nccl where every one of at least 2 ranks owns its GPU and NCCL is built in (stencil3d's rule,
// which measured best there), else host. Collective: all ranks take one path.
HaloPath choose_halo_path(const RunContext& ctx, Placement placement) {
    const bool own_gpu = placement == Placement::gpu && ctx.session().gpu_owner() == ctx.session().world_rank();
    int all_own_gpus = own_gpu ? 1 : 0;
    MPI_Allreduce(MPI_IN_PLACE, &all_own_gpus, 1, MPI_INT, MPI_MIN, ctx.comm());
    const std::optional<HaloPath> requested = parse_halo_path(ctx.params().text("halo_path"));
    if (!requested)
        return all_own_gpus != 0 && ctx.size() > 1 && device_halo_exchange_built() ? HaloPath::nccl : HaloPath::host;
    if (*requested == HaloPath::nccl && all_own_gpus == 0)  // every rank says why; none waits alone in NCCL's init
        throw InputError("cg_fp64: halo_path nccl needs every rank on a GPU of its own (NCCL refuses ranks sharing a GPU); "
                         "use halo_path: host");
    return *requested;
}

CgPlan plan_cg(const RunContext& ctx) {
    CgPlan plan;
    plan.placement = placement::choose_placement(ctx, ctx.params().text(placement::names::device));
    plan.halo_path = choose_halo_path(ctx, plan.placement);
    const std::optional<std::int64_t> global_n = ctx.params().optional_integer("global_n");
    const std::int64_t local_n = ctx.params().optional_integer("local_n").value_or(
        plan.placement == Placement::gpu ? gpu_local_n : host_local_n);
    const std::array<int, 3> dims = StencilGeometry::decomposition(ctx.size());
    for (int d = 0; d < 3; ++d) {
        plan.global[d] = static_cast<std::size_t>(global_n ? *global_n : local_n * dims[d]);
        if (plan.global[d] < static_cast<std::size_t>(dims[d]))
            throw InputError(fmt::format("cg_fp64: {} cells along dimension {} cannot be split over {} ranks", plan.global[d],
                                         d, dims[d]));
    }
    plan.spectrum = cg::laplacian_spectrum(plan.global);
    plan.iterations = ctx.params().optional_integer("iterations").value_or(
        cg::iterations_for(plan.spectrum.kappa(), iterations_target));
    plan.tolerance = ctx.params().real("tolerance");
    plan.repetitions = ctx.params().integer("repetitions");
    return plan;
}

// One vector with its halos, in bytes (in floating point: an absurd size must not wrap around).
double vector_bytes(const StencilGeometry& geometry) {
    double bytes = sizeof(double);
    for (const std::size_t extent : geometry.local()) bytes *= static_cast<double>(extent + 2);
    return bytes;
}

// Six vectors with halos per rank must fit: on the GPU 0.8 of its memory, on the host 0.9 of
// this rank's share (plus the host copy of x* the load starts from).
void check_memory(const RunContext& ctx, Placement placement, const StencilGeometry& geometry) {
    const double field_bytes = vector_bytes(geometry);
    if (placement == Placement::gpu) {
        const auto facts = gpu::query_gpu_facts(*placement::usable_gpu(ctx));
        if (vectors * field_bytes > 0.8 * static_cast<double>(facts.memory_bytes))
            throw InputError(fmt::format("cg_fp64: {} vectors of {:.1f} GiB do not fit on {} ({:.1f} GiB)", vectors,
                                         field_bytes / 1073741824.0, facts.name, facts.memory_bytes / 1073741824.0));
    }
    const double share = static_cast<double>(placement::host_memory_bytes(ctx)) / ctx.session().identity().local_size;
    const double needed = (placement == Placement::gpu ? 2.0 : vectors + 1.0) * field_bytes;
    if (needed > 0.9 * share)
        throw InputError(fmt::format("cg_fp64: {:.1f} GiB of vectors per rank exceed 0.9 of this rank's {:.1f} GiB",
                                     needed / 1073741824.0, share / 1073741824.0));
}

struct BandwidthBound {
    double triad_gbs = 0.0;
    std::string failure;
    std::int64_t triad_mib = 0;
};

// The short STREAM run on the same device (its arrays validate), stencil3d's bound; on the host as
// large as the solver's vectors (kernels/common/host_bound_size.hpp).
BandwidthBound measure_bound(const RunContext& ctx, Placement placement, const StencilGeometry& geometry) {
    const std::int64_t mib = ctx.params().optional_integer("triad_mib").value_or(
        placement == Placement::gpu ? gpu_triad_mib : host_triad_mib_holding(vectors * vector_bytes(geometry)));
    StreamRunOptions options;
    options.elements = static_cast<std::size_t>(mib) * 1024 * 1024 / sizeof(double);
    options.repetitions = ctx.params().integer("triad_repetitions");
    auto backend = placement == Placement::gpu ? make_cuda_stream(options.elements, *placement::usable_gpu(ctx))
                                               : make_host_stream(options.elements);
    const StreamMeasurement measured = measure_stream(*backend, options, ctx.comm());
    return {stats::median(measured.gbs.at(StreamKernel::triad)), measured.failure, mib};
}

// x* on this rank's cells, zero halos (the Dirichlet boundary).
std::vector<double> manufactured_field(const StencilGeometry& geometry) {
    const cg::FieldLayout layout = cg::make_layout(geometry.local());
    std::vector<double> field(static_cast<std::size_t>(layout.size()), 0.0);
    const auto& offset = geometry.offset();
    for (std::int64_t k = 1; k <= layout.nz; ++k)
        for (std::int64_t j = 1; j <= layout.ny; ++j)
            for (std::int64_t i = 1; i <= layout.nx; ++i)
                field[static_cast<std::size_t>(layout.index(i, j, k))] = cg::manufactured_solution(
                    offset[0] + static_cast<std::uint64_t>(i), offset[1] + static_cast<std::uint64_t>(j),
                    offset[2] + static_cast<std::uint64_t>(k), geometry.global());
    return field;
}

// The backend with x* loaded, b = A x* computed (one halo exchange and SpMV: also the warm-up
// of every kernel the iterations use), and on the nccl path its device halo exchange set up
// (collective; the Cartesian communicator keeps ctx.comm()'s order, no reorder).
std::unique_ptr<cg::CgBackend> prepared_backend(const RunContext& ctx, const CgPlan& plan, const StencilGeometry& geometry,
                                                HaloExchange& halos) {
    auto backend = plan.placement == Placement::gpu ? cg::make_cuda_cg(geometry.local(), *placement::usable_gpu(ctx))
                                                    : cg::make_host_cg(geometry.local());
    if (plan.halo_path == HaloPath::nccl) {
        std::array<int, 6> neighbour_ranks{};
        for (int face = 0; face < stencil_faces; ++face) neighbour_ranks[face] = geometry.neighbour(face);
        backend->use_device_halo_exchange(geometry.cart(), neighbour_ranks);
    }
    backend->load(manufactured_field(geometry));
    halos.step(*backend);
    backend->synchronize();
    backend->take_rhs();
    return backend;
}

struct Repetition {
    cg::SolveOutcome outcome;
    cg::SolutionCheck check;
    cg::Bounds bounds;
};

// Judged per solve: a figure above its bound fails, naming it.
void judge(TestResult& result, std::int64_t index, const Repetition& rep) {
    const auto& check = rep.check;
    if (!rep.outcome.breakdown.empty())
        result.fail(fmt::format("cg_fp64: breakdown in repetition {}: {}", index, rep.outcome.breakdown));
    if (!(check.relative_error <= rep.bounds.relative_error))
        result.fail(fmt::format("cg_fp64: wrong solution in repetition {}: relative error ||x - x*||/||x*|| = {:.3g} above "
                                "the bound {:.3g} after {} iterations",
                                index, check.relative_error, rep.bounds.relative_error, rep.outcome.iterations));
    if (!(check.relative_residual <= rep.bounds.relative_residual))
        result.fail(fmt::format("cg_fp64: wrong solution in repetition {}: true relative residual ||b - Ax||/||b|| = {:.3g} "
                                "above the bound {:.3g} (the iteration's own residual: {:.3g})",
                                index, check.relative_residual, rep.bounds.relative_residual, rep.outcome.recursive_residual));
}

struct Rates {
    double gflops = 0.0;
    double iterations_per_s = 0.0;
    double allreduce_share = 0.0;
    double effective_gbs = 0.0;
};

Rates rates_of(const cg::SolveOutcome& outcome, const StencilGeometry& geometry) {
    Rates rates;
    const double seconds = std::max(outcome.timing.total_s, 1e-12);
    const double cell_iterations = static_cast<double>(geometry.local_cells()) * static_cast<double>(outcome.iterations);
    rates.gflops = cg::flops_per_cell * cell_iterations / seconds * 1e-9;
    rates.iterations_per_s = static_cast<double>(outcome.iterations) / seconds;
    rates.allreduce_share = outcome.timing.allreduce_s / seconds;
    rates.effective_gbs = cg::bytes_per_cell * cell_iterations / seconds * 1e-9;
    return rates;
}

// The weak-scaling phases, one solve's iterations each, before the solves (which start from x0 = 0
// and overwrite what these leave): alone, every rank's SpMV with no message (p's halos as they
// are), its two local dots and the updates with alpha = beta = 0 (the same passes; x and r keep
// their values); halo, p's exchange alone; serial communication, the two allreduces alone.
ScalingPhases measure_cg_phases(const RunContext& ctx, cg::CgBackend& backend, HaloExchange& halos,
                                const StencilGeometry& geometry, std::int64_t iterations) {
    if (alone_in_job(geometry)) return {};  // its solves are its work alone (stencil_scaling.hpp)
    backend.start_solve();                  // defined vectors for the passes
    ScalingPhases phases = measure_phases(backend, halos, geometry, iterations, [&] {
        halos.update_alone(backend);
        backend.dot_pq();
        backend.update_xr(0.0);
        backend.update_p(0.0);
        planted_delay(ctx.faults().delay_s());
    });
    phases.serial_comm = timed_phase(backend, geometry, iterations, [&] {
        std::array<double, 2> sums{1.0, 1.0};
        MPI_Allreduce(MPI_IN_PLACE, &sums[0], 1, MPI_DOUBLE, MPI_SUM, geometry.cart());
        MPI_Allreduce(MPI_IN_PLACE, &sums[1], 1, MPI_DOUBLE, MPI_SUM, geometry.cart());
    });
    return phases;
}

class CgFp64Test final : public Test {
public:
    CgFp64Test() : Test(cg_fp64_spec()) {}

    std::optional<std::string> waiver(const RunContext& ctx) const override {
        const std::string& device = ctx.params().text(placement::names::device);
        if (auto gpu_waiver = placement::gpu_request_waiver(ctx, device)) return gpu_waiver;
        if (ctx.params().text("halo_path") == "nccl" && !placement::usable_gpu(ctx)) return std::string(placement::no_cuda_device);
        const bool on_gpu = device == "gpu" || (device == "auto" && placement::usable_gpu(ctx));
        if (on_gpu && !cg::cuda_cg_built()) return std::string("built without CUDA (the GPU CG needs it)");
        return std::nullopt;
    }

    // plan -> bound -> b = A x* -> repetitions (each timed, then checked) -> metrics and parameters.
    TestResult run(const RunContext& ctx) const override {
        const CgPlan plan = plan_cg(ctx);
        const StencilGeometry geometry(ctx.comm(), plan.global);
        check_memory(ctx, plan.placement, geometry);
        const BandwidthBound bound = measure_bound(ctx, plan.placement, geometry);
        HaloExchange halos(geometry);
        const auto backend = prepared_backend(ctx, plan, geometry, halos);
        const ScalingPhases phases = measure_cg_phases(ctx, *backend, halos, geometry, plan.iterations);
        PhaseSteps job;  // per solve: its time over its iterations

        TestResult result;
        result.samples = SampleTable(cg_fp64_spec().samples);
        std::vector<double> gflops, per_s, shares, gbs;
        double worst_error = 0.0, worst_residual = 0.0, error_bound = 0.0, residual_bound = 0.0;
        std::int64_t iterations_done = 0;
        for (std::int64_t index = 0; index < plan.repetitions; ++index) {
            cg::SolveOptions options;
            options.iterations = plan.iterations;
            options.tolerance = plan.tolerance;
            options.corrupt = ctx.faults().corrupt() && index == 0;
            options.delay_s = ctx.faults().delay_s();
            Repetition rep;
            rep.outcome = cg::solve(*backend, halos, geometry.cart(), options);
            rep.check = cg::check_solution(*backend, halos, geometry.cart());
            rep.bounds = cg::solution_bounds(plan.spectrum, rep.outcome.iterations, plan.tolerance, rep.check.solution_norm,
                                             rep.check.rhs_norm);
            judge(result, index, rep);
            const Rates rates = rates_of(rep.outcome, geometry);
            gflops.push_back(rates.gflops);
            per_s.push_back(rates.iterations_per_s);
            shares.push_back(rates.allreduce_share);
            gbs.push_back(rates.effective_gbs);
            result.samples.add_row({static_cast<double>(index), static_cast<double>(rep.outcome.iterations),
                                    rep.outcome.timing.total_s, rep.outcome.timing.allreduce_s, rates.gflops,
                                    rep.check.relative_error, rep.check.relative_residual});
            if (index == 0 || rep.check.relative_error > worst_error) worst_error = rep.check.relative_error, error_bound = rep.bounds.relative_error;
            if (index == 0 || rep.check.relative_residual > worst_residual)
                worst_residual = rep.check.relative_residual, residual_bound = rep.bounds.relative_residual;
            iterations_done = rep.outcome.iterations;
            if (rep.outcome.iterations > 0)
                job.rows.push_back(rep.outcome.timing.total_s / static_cast<double>(rep.outcome.iterations));
        }
        if (!bound.failure.empty()) result.fail("bandwidth reference (STREAM) failed validation: " + bound.failure);

        const double cell_bytes = cg::bytes_per_cell * static_cast<double>(geometry.local_cells());
        const double bound_per_s = bound.triad_gbs * 1e9 / cell_bytes;
        const double effective_gbs = stats::median(gbs);
        result.add_metric("cg_fp64.gflops", stats::median(gflops), bound.triad_gbs / cg::bytes_per_cell * cg::flops_per_cell);
        result.add_metric("cg_fp64.iterations_per_s", stats::median(per_s), bound_per_s);
        result.add_metric("cg_fp64.allreduce_time_share", stats::median(shares));
        result.add_metric("cg_fp64.bandwidth_bound_fraction", bound.triad_gbs > 0.0 ? effective_gbs / bound.triad_gbs : 0.0, 1.0);
        result.add_metric("cg_fp64.relative_error", worst_error, error_bound);
        result.add_metric("cg_fp64.relative_residual", worst_residual, residual_bound);
        if (!job.rows.empty()) {
            job.step_s = stats::median(job.rows);
            add_scaling_metrics(result, cg_fp64_names::figure_names, phases, job, geometry.cart());
        }

        auto& p = result.parameters;
        const auto& g = plan.global;
        p[placement::names::device] = std::string(to_string(plan.placement));
        p["backend"] = backend->name();
        p["global_cells"] = fmt::format("{}x{}x{}", g[0], g[1], g[2]);
        p["decomposition"] = fmt::format("{}x{}x{}", geometry.dims()[0], geometry.dims()[1], geometry.dims()[2]);
        p["local_cells"] = fmt::format("{}x{}x{}", geometry.local()[0], geometry.local()[1], geometry.local()[2]);
        p["iterations_requested"] = std::to_string(plan.iterations);
        p["iterations_used"] = std::to_string(iterations_done);
        p["repetitions"] = std::to_string(plan.repetitions);
        p["tolerance"] = fmt::format("{:.3g}", plan.tolerance);
        p["halo_path"] = std::string(to_string(plan.halo_path));
        p["halo_path_requested"] = ctx.params().text("halo_path");
        p["dot_reduction"] = plan.placement == Placement::gpu
                                 ? "MPI_Allreduce of each rank's sum (device reduction, 8 bytes to the host)"
                                 : "MPI_Allreduce of each rank's sum";
        p["kappa"] = fmt::format("{:.6g}", plan.spectrum.kappa());
        p["lambda_min"] = fmt::format("{:.6g}", plan.spectrum.lambda_min);
        p["lambda_max"] = fmt::format("{:.6g}", plan.spectrum.lambda_max);
        p["error_bound"] = fmt::format("{:.3g}", error_bound);
        p["residual_bound"] = fmt::format("{:.3g}", residual_bound);
        p["relative_error"] = fmt::format("{:.17g}", worst_error);
        p["relative_residual"] = fmt::format("{:.17g}", worst_residual);
        p["flops_per_cell"] = fmt::format("{}", cg::flops_per_cell);
        p["bytes_per_cell"] = fmt::format("{}", cg::bytes_per_cell);
        p["triad_gbs"] = fmt::format("{:.17g}", bound.triad_gbs);
        p["triad_mib_used"] = std::to_string(bound.triad_mib);
        p["effective_gbs"] = fmt::format("{:.6g}", effective_gbs);
        // After every solve is timed and checked, so neither the solution nor a metric sees it.
        const bool kernel_timing = plan.placement == Placement::gpu && ctx.params().flag("kernel_timing");
        p["kernel_timing"] = plan.placement == Placement::gpu ? (kernel_timing ? "true" : "false") : "ignored on the host";
        if (kernel_timing) {
            try {  // a diagnostic: its failure is recorded, the judged result stands
                if (const auto times = backend->time_kernels(cg::kernel_timing_iterations))
                    cg::add_kernel_timing(*times, stats::median(per_s) > 0.0 ? 1.0 / stats::median(per_s) : 0.0, p);
            } catch (const std::exception& error) {
                p["kernel_timing"] = std::string("failed: ") + error.what();
            }
        }
        return result;
    }
};

SHAKEDOWN_REGISTER_TEST(CgFp64Test);

}  // namespace
}  // namespace shakedown::kernels
