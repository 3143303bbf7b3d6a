#include "kernels/cg/cg_fp64_names.hpp"
#include "kernels/specs.hpp"
#include "placement/placement_names.hpp"

#include "core/build_features.hpp"
#include "core/errors.hpp"
#include "core/registry.hpp"

#include <fmt/format.h>

namespace shakedown::kernels {
namespace {

// What the values alone rule out before any rank starts: a halo path this build or device
// cannot take (the shape is the shape measured: refused, never quietly changed).
void check_cg_parameters(const TestParams& params, int /*world_size*/) {
    if (params.text("halo_path") != "nccl") return;  // auto decides in run()
    if (!built_with(Feature::nccl))
        throw InputError("cg_fp64: halo_path nccl needs a build with CUDA and NCCL; this shakedown was built without NCCL (use halo_path: host)");
    if (params.text(placement::names::device) == "host")
        throw InputError("cg_fp64: halo_path nccl exchanges GPU memory, but device host runs the host backend (use halo_path: host or device: gpu)");
}

}  // namespace

const TestSpec& cg_fp64_spec() {
    static const TestSpec spec{
        .key = std::string(cg_fp64_names::key),
        .description = "FP64 conjugate gradient on the 3-D 7-point Laplacian (stencil3d's decomposition and halo exchange, "
                       "two MPI_Allreduce per iteration), checked against a manufactured solution, vs triad bound",
        .suites = {"quick", "full"},
        .parameters =
            {
                placement::names::device_parameter(),
                ParamSpec::integer("global_n", automatic, "cells per side of the global cube")
                    .allow_auto("local_n per rank")
                    .between(1, 1 << 20),
                ParamSpec::integer("local_n", automatic, "cells per side per rank when global_n is auto")
                    .allow_auto("32 on the host, 256 on a GPU")
                    .between(1, 1 << 16),
                ParamSpec::integer("iterations", automatic, "CG iterations per solve (at most, with a tolerance)")
                    .allow_auto("where the bound 2 sqrt(kappa) rho^k reaches 1e-8")
                    .between(1, 10'000'000),
                ParamSpec::real("tolerance", 0.0, "stop a solve once ||r|| / ||b|| <= tolerance (0: run every iteration)")
                    .at_least(0)
                    .at_most(0.5),
                ParamSpec::integer("repetitions", 3, "solves from x0 = 0, each timed and checked")
                    .between(1, 100)
                    .in_suite("quick", 1),
                ParamSpec::integer("triad_mib", automatic, "MiB per array of the bound's triad")
                    .allow_auto("on the host the kernel's working set over 3 (the same cache level), 2048 on a GPU")
                    .between(1, std::int64_t{1} << 40),
                ParamSpec::integer("triad_repetitions", 3, "repetitions of the bound's STREAM run").between(1, 1000),
                ParamSpec::choice(
                    "halo_path", "auto", {"auto", "host", "nccl"},
                    "how p's halos travel between ranks: host (host buffers and MPI), nccl (GPU to GPU, built "
                    "with NCCL), or auto: nccl where 2 or more ranks each run on a GPU of their own, else host"),
                ParamSpec::flag(
                    "kernel_timing", true,
                    "GPU only (ignored on the host): after the timed solves, 20 untimed iterations with an event pair "
                    "around each kernel; per-kernel seconds and GB/s as result parameters (kernel_gbs, ...)"),
            },
        .metrics =
            {
                {std::string(cg_fp64_names::gflops), "GFLOP/s", Better::higher,
                 "17 flops per cell and iteration (SpMV 7, two dots 4, three axpys 6) x rate, nominal: the triad bound"},
                {"cg_fp64.iterations_per_s", "1/s", Better::higher, "CG iterations per second, nominal: the triad bound"},
                {"cg_fp64.allreduce_time_share", "fraction", Better::lower,
                 "time in the two MPI_Allreduce per iteration / total"},
                {std::string(cg_fp64_names::bandwidth_bound_fraction), "fraction", Better::higher,
                 "104 bytes per cell and iteration x rate / triad measured in the same test", MetricScope::rank,
                 PhysicalBound::nominal},
                {"cg_fp64.{relative_error,relative_residual}", "1", Better::lower,
                 "worst solve's ||x - x*|| / ||x*|| and true ||b - Ax|| / ||b||, nominal: the bound from kappa and the "
                 "iterations (above it fails)",
                 MetricScope::rank, PhysicalBound::none, NominalRole::tolerance},
                {std::string(cg_fp64_names::alone_iteration_s), "s", Better::lower,
                 "iteration with no message (SpMV, local dots, updates), every rank at once: T1"},
                {std::string(cg_fp64_names::halo_iteration_s), "s", Better::lower, "p's halo exchange alone, per iteration"},
                {std::string(cg_fp64_names::allreduce_iteration_s), "s", Better::lower,
                 "the two allreduces alone, per iteration"},
                {std::string(cg_fp64_names::job_iteration_s), "s", Better::lower,
                 "the solves' iteration (median over the solves)"},
                {std::string(cg_fp64_names::halo_gbs), "GB/s", Better::higher,
                 "halo bytes sent and received per exchange over the exchange alone (ranks with neighbours)"},
                {std::string(cg_fp64_names::step_noise), "fraction", Better::lower,
                 "(p95 - median) / median of the iteration times, the larger of the phases alone and job"},
                {std::string(cg_fp64_names::job_efficiency), "fraction", Better::higher,
                 "the ranks' median T1 over the slowest rank's iteration in the solves", MetricScope::job},
                {std::string(cg_fp64_names::predicted_job_efficiency), "fraction", Better::higher,
                 "the same predicted from the median T1, halo exchange and allreduces alone", MetricScope::job},
                {std::string(cg_fp64_names::job_halo_gbs), "GB/s", Better::higher, "the ranks' median halo bandwidth",
                 MetricScope::job},
            },
        .samples = {{"repetition", "count"},
                    {"iterations", "count"},
                    {"seconds", "s"},
                    {"allreduce_seconds", "s"},
                    {"gflops", "GFLOP/s"},
                    {"relative_error", "1"},
                    {"relative_residual", "1"}},
        .check_parameters = check_cg_parameters,
    };
    return spec;
}

SHAKEDOWN_REGISTER_SPEC(cg_fp64_spec);

}  // namespace shakedown::kernels
