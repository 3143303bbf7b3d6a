#include "kernels/lu/lu_fp64_names.hpp"
#include "kernels/specs.hpp"
#include "placement/placement_names.hpp"

#include "core/errors.hpp"
#include "core/input_limits.hpp"
#include "core/registry.hpp"
#include "kernels/lu/lu_gpu_algorithm.hpp"
#include "kernels/lu/lu_grid.hpp"

#include <fmt/format.h>

namespace shakedown::kernels {
namespace {

// A grid that is given must hold the job's ranks exactly (judged before any work; `auto` picks
// the squarest). Only the host LU spans the job; the GPU LU runs one per GPU.
void check_lu_fp64(const TestParams& params, int world_size) {
    if (params.text(placement::names::device) == "gpu" || params.is_auto("grid")) return;
    const std::optional<lu::ProcessGrid> grid = lu::parse_grid(params.text("grid"));
    if (!grid) throw InputError(fmt::format("lu_fp64: grid '{}' is not PxQ (e.g. 2x4) or auto", params.text("grid")));
    if (grid->rows * grid->columns != world_size)
        throw InputError(fmt::format("lu_fp64: grid {}x{} holds {} ranks, the job has {}: the process grid must use every "
                                     "rank exactly once",
                                     grid->rows, grid->columns, grid->rows * grid->columns, world_size));
}

}  // namespace

const TestSpec& lu_fp64_spec() {
    static const TestSpec spec{
        .key = std::string(lu_names::key),
        .description = "HPL-class FP64 LU with partial pivoting and solve (ScaLAPACK across the host ranks, a look-ahead "
                       "LU through cuBLAS and cuSOLVER per GPU), HPL's rate and scaled residual (< 16)",
        .suites = {"full"},
        .parameters =
            {
                placement::names::device_parameter(),
                ParamSpec::integer("n", automatic, "matrix order")
                    .allow_auto("so one factorization lasts about target_s, within memory_fraction")
                    .between(16, 1 << 20),
                ParamSpec::real("memory_fraction", automatic,
                                "most of the GPU's memory (host: of the node's, shared by its ranks) the matrix may "
                                "take (one copy: the residual's A is generated again, as HPL does)")
                    .allow_auto(fmt::format("{} of a GPU's (HPL's way: most of it, as the rate rises with n), {} on "
                                            "the host",
                                            lu::default_gpu_memory_fraction, lu::default_host_memory_fraction))
                    .above(0)
                    .at_most(0.8),
                ParamSpec::real("target_s", automatic, "how long one factorization should last when n is auto, seconds")
                    .allow_auto(fmt::format("{} s on a GPU, {} s on the host", lu::default_gpu_target_s,
                                            lu::default_host_target_s))
                    .above(0)
                    .at_most(input_limits::max_deadline_s)
                    .in_suite("quick", 1.0),
                ParamSpec::integer("block", automatic,
                                   "block size: ScaLAPACK's on the host, the panel width of the GPU's look-ahead LU")
                    .allow_auto(fmt::format("{} on the host, {} on a GPU", lu::default_host_block, lu::default_gpu_block))
                    .between(8, 4096),
                // The look-ahead LU ran faster than cuSOLVER's getrf at every n on an H200 (0.68 vs
                // 0.66 of DGEMM at n 48384, 0.78 vs 0.74 at 94208; docs/benchmarks.md, lu_fp64).
                ParamSpec::choice("gpu_algorithm", std::string(lu::lookahead_name),
                                  {std::string(lu::lookahead_name), std::string(lu::cusolver_name)},
                                  "how a GPU factors: lookahead (panel k+1 on a second stream while the trailing "
                                  "matrix takes panel k's update, HPL's look-ahead) or cusolver (cusolverDnDgetrf "
                                  "of the whole matrix, each panel on the critical path)"),
                ParamSpec::text("grid", automatic, "host process grid PxQ over the job's ranks")
                    .allow_auto("the squarest P x Q with P <= Q"),
                ParamSpec::integer("repetitions", 3, "timed factorizations and solves after one warm-up").between(1, 100),
            },
        .metrics =
            {
                {std::string(lu_names::tflops), "TFLOP/s", Better::higher,
                 "median rate of the repetitions, HPL's convention: (2/3 n^3 + 2 n^2) / (factorization + solve)"},
                {"lu_fp64.{tflops_max,tflops_min}", "TFLOP/s", Better::higher, "best and worst repetition"},
                {std::string(lu_names::solve_s), "s", Better::lower,
                 "median seconds of one factorization and solve (what a solve's energy is counted over)"},
                {std::string(lu_names::scaled_residual), "ratio", Better::lower,
                 "the worst repetition's ||Ax-b||oo / (eps (||A||oo ||x||oo + ||b||oo) n); 16 or more fails",
                 MetricScope::rank, PhysicalBound::none, NominalRole::tolerance},
            },
        .samples = {{"repetition", "count"}, {"seconds", "s"}, {"tflops", "TFLOP/s"}, {"scaled_residual", "ratio"}},
        .default_deadline_s = 1800.0,
        .check_parameters = check_lu_fp64,
    };
    return spec;
}

SHAKEDOWN_REGISTER_SPEC(lu_fp64_spec);

}  // namespace shakedown::kernels
