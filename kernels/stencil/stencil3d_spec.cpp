#include "kernels/specs.hpp"
#include "kernels/common/kernel_backend.hpp"
#include "kernels/stencil/stencil3d_names.hpp"
#include "placement/placement_names.hpp"

#include "core/errors.hpp"
#include "core/registry.hpp"

#include <fmt/format.h>

namespace shakedown::kernels {
namespace {

// What the values alone can rule out, before any rank starts: a GPU block the hardware cannot
// launch, a shape the two-cells kernel cannot take, a halo path this build or device cannot
// take. (The shape asked for is the shape measured: refused, never quietly changed.)
void check_stencil_parameters(const TestParams& params, int /*world_size*/) {
    const std::int64_t x = params.optional_integer("gpu_block_x").value_or(32);
    const std::int64_t y = params.optional_integer("gpu_block_y").value_or(8);
    const std::int64_t cells = params.optional_integer("gpu_cells_per_thread").value_or(2);
    if (x * y > 1024) throw InputError(fmt::format("stencil3d: a GPU block of {}x{} threads exceeds 1024", x, y));
    // Two cells per thread take the x neighbours from the adjacent lanes: a warp must be one row segment.
    if (cells == 2 && x % 32 != 0)
        throw InputError(fmt::format(
            "stencil3d: gpu_block_x {} with 2 cells per thread must be a multiple of 32 (or set gpu_cells_per_thread: 1)", x));
    if (params.text("halo_path") != "nccl") return;  // auto decides in run()
    if (!built_with(Feature::nccl))
        throw InputError("stencil3d: halo_path nccl needs a build with CUDA and NCCL; this shakedown was built without NCCL (use halo_path: host)");
    if (params.text("backend") == "kokkos")
        throw InputError("stencil3d: halo_path nccl exchanges faces from the CUDA backend's memory; backend kokkos stages halos through the host (use halo_path: host or backend: native)");
    if (params.text(placement::names::device) == "host")
        throw InputError("stencil3d: halo_path nccl exchanges GPU memory, but device host runs the Kokkos host backend (use halo_path: host or device: gpu)");
}

}  // namespace

const TestSpec& stencil3d_spec() {
    static const TestSpec spec{
        .key = std::string(stencil3d_names::key),
        .description = "7-point 3-D Jacobi with MPI halo exchange (Kokkos host / CUDA or Kokkos GPU), exact-solution "
                       "validated, vs triad bound, "
                       "weak scaling against its prediction",
        .suites = {"quick", "full"},
        .parameters =
            {
                placement::names::device_parameter(),
                backend_parameter(),
                ParamSpec::integer("global_n", automatic, "cells per side of the global cube")
                    .allow_auto("local_n per rank")
                    .at_least(1),
                ParamSpec::integer("local_n", automatic, "cells per side per rank when global_n is auto")
                    .allow_auto("128 on the host, 512 on a GPU")
                    .at_least(1),
                ParamSpec::integer("steps", 100, "timed Jacobi steps").at_least(1).in_suite("quick", 20),
                ParamSpec::integer("triad_mib", automatic, "MiB per array of the bound's triad")
                    .allow_auto("on the host the kernel's working set over 3 (the same cache level), 2048 on a GPU")
                    .between(1, std::int64_t{1} << 40),
                ParamSpec::integer("triad_repetitions", 3, "repetitions of the bound's STREAM run").at_least(1),
                ParamSpec::integer("gpu_block_x", automatic,
                                   "GPU thread-block width along x in threads (a multiple of 32 with 2 cells per thread)")
                    .allow_auto("32")
                    .between(1, 1024),
                ParamSpec::integer("gpu_block_y", automatic, "GPU thread-block height along y")
                    .allow_auto("8 (native), 4 (kokkos)")
                    .between(1, 1024),
                ParamSpec::integer("gpu_z_chunk", automatic, "planes each GPU thread walks along z")
                    .allow_auto("8")
                    .between(1, 1 << 30),
                ParamSpec::integer("gpu_cells_per_thread", automatic,
                                   "adjacent x cells per GPU thread (16-byte loads; native: x neighbours by warp shuffles)")
                    .allow_auto("2")
                    .between(1, 2),
                ParamSpec::choice(
                    "halo_path", "auto", {"auto", "host", "nccl"},
                    "how halos travel between ranks: host (pinned host buffers and MPI), nccl (GPU to GPU, CUDA backend, "
                    "built with NCCL), or auto: nccl where 2 or more ranks each run on a GPU of their own and NCCL is "
                    "built in, else host"),
            },
        .metrics =
            {
                {std::string(stencil3d_names::gcells_per_s), "Gcell/s", Better::higher,
                 "cell updates per second, nominal: the triad bound"},
                {"stencil3d.effective_gbs", "GB/s", Better::higher, "bytes a cell update moves x rate, nominal: triad"},
                {"stencil3d.halo_time_share", "fraction", Better::lower, "time in halo work (host halo path only)"},
                {"stencil3d.{bandwidth_bound_fraction,copy_bound_fraction}", "fraction", Better::higher,
                 "effective bandwidth over the triad and copy measured in the same test", MetricScope::rank,
                 PhysicalBound::nominal},
                {"stencil3d.max_rel_error", "1", Better::lower, "largest relative error against the exact solution",
                 MetricScope::rank, PhysicalBound::none, NominalRole::tolerance},
                {std::string(stencil3d_names::alone_step_s), "s", Better::lower,
                 "step with no halo exchange, every rank at once (wall time over the steps): T1"},
                {std::string(stencil3d_names::halo_step_s), "s", Better::lower,
                 "halo exchange with no update (wall time over the exchanges)"},
                {std::string(stencil3d_names::job_step_s), "s", Better::lower,
                 "step with its halo exchange (wall time over the steps)"},
                {std::string(stencil3d_names::halo_gbs), "GB/s", Better::higher,
                 "halo bytes sent and received per exchange over the exchange alone (ranks with neighbours)"},
                {std::string(stencil3d_names::step_noise), "fraction", Better::lower,
                 "(p95 - median) / median of the step times, the larger of the phases alone and job"},
                {std::string(stencil3d_names::job_efficiency), "fraction", Better::higher,
                 "the ranks' median T1 over the slowest rank's step with halos", MetricScope::job},
                {std::string(stencil3d_names::predicted_job_efficiency), "fraction", Better::higher,
                 "the same predicted from the median T1 and halo exchange alone, overlapped as scheduled", MetricScope::job},
                {std::string(stencil3d_names::job_halo_gbs), "GB/s", Better::higher, "the ranks' median halo bandwidth",
                 MetricScope::job},
            },
        .samples = {{"step", "count"}, {"halo_seconds", "s"}, {"compute_seconds", "s"}, {"gcells_per_s", "Gcell/s"}},
        .headline = {{.metric = std::string(stencil3d_names::gcells_per_s), .place = 4}},
        .check_parameters = check_stencil_parameters,
    };
    return spec;
}

SHAKEDOWN_REGISTER_SPEC(stencil3d_spec);

}  // namespace shakedown::kernels
