#include "kernels/ladder/gemm_ladder_names.hpp"
#include "kernels/ladder/ladder_precisions.hpp"
#include "kernels/specs.hpp"

#include "core/input_limits.hpp"
#include "core/registry.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace shakedown::kernels {
namespace {

std::vector<std::string> rung_names() {
    std::vector<std::string> names;
    for (const auto& rung : ladder_rungs) names.emplace_back(rung.name);
    return names;
}

std::vector<std::string> emulated_rung_names() {
    std::vector<std::string> names;
    for (const auto& rung : ladder_rungs)
        if (rung.native != rung.id) names.emplace_back(rung.name);
    return names;
}

}  // namespace

const TestSpec& gemm_ladder_spec() {
    static const TestSpec spec{
        .key = std::string(gemm_ladder_names::key),
        .description =
            "GPU GEMM at fp64/fp32/tf32/bf16/fp16/fp8 and emulated fp64 (fixed-point) / fp32 (BF16x9) (cuBLAS, cuBLASLt), "
            "sampled FP64 validation, emulation vs native, TFLOP/s vs nominal",
        .suites = {"quick", "full"},
        .parameters =
            {
                ParamSpec::names("precisions", rung_names(), rung_names(), "rungs to run (in ladder order)"),
                ParamSpec::integer("n", 8192, "m = n = k of every GEMM").between(16, 1 << 20),
                ParamSpec::integer("emulated_n", automatic, "m = n = k of the emulated rungs (fp64_emulated, fp32_emulated)")
                    .between(16, 1 << 20)
                    .allow_auto("n")
                    .in_suite("quick", 4096),
                ParamSpec::integer("fp64_emulation_mantissa_bits", automatic,
                                   "fp64_emulated: mantissa bits cuBLAS retains (fixed mantissa control)")
                    .between(8, 64)
                    .allow_auto("cuBLAS' default: dynamic mantissa control, the bits FP64 accuracy needs"),
                ParamSpec::integer("repetitions", 10, "timed repetitions per precision").at_least(1),
                ParamSpec::integer("warmup", 2, "untimed repetitions first").at_least(0),
                ParamSpec::integer("samples", 256, "entries of C checked against the FP64 reference").at_least(3),
                ParamSpec::integer("autotune_candidates", 8,
                                   "cuBLASLt heuristic algorithms timed per layout beside cublasGemmEx (0 = no tuning)")
                    .between(0, 16),
                ParamSpec::integer("autotune_rounds", 3, "round-robin timings of each candidate (median decides)")
                    .at_least(1),
                ParamSpec::real("autotune_budget_s", 3.0, "GPU seconds the autotune rounds may take per precision")
                    .above(0)
                    .at_most(input_limits::max_deadline_s),
                ParamSpec::real("cooldown_s", 2.0, "idle seconds between the autotune and the timed repetitions")
                    .between(0, input_limits::max_deadline_s),
                ParamSpec::flag("fp8_fast_accumulation", false,
                                "cuBLASLt FP8 fast accumulation (no periodic FP32 promotion; off is the precise default)"),
            },
        .metrics =
            {
                {fmt::format("gemm_ladder.{{{}}}_tflops", fmt::join(rung_names(), ",")), "TFLOP/s", Better::higher,
                 "median of the timed repetitions (a short burst); the emulated rungs carry no nominal"},
                {fmt::format("gemm_ladder.{{{}}}_tflops_max", fmt::join(rung_names(), ",")), "TFLOP/s", Better::higher,
                 "best repetition"},
                {fmt::format("gemm_ladder.{{{}}}_max_rel_error_vs_native", fmt::join(emulated_rung_names(), ",")), "ratio",
                 Better::lower,
                 "max |C_emul - C_native| / max |C_native| over the whole matrix (GPU), native rung's product of the same "
                 "inputs; above emulation_tolerance fails the rung",
                 MetricScope::rank, PhysicalBound::none, NominalRole::tolerance},
            },
        .samples = {{"precision", "rung"}, {"repetition", "count"}, {"seconds", "s"}, {"tflops", "TFLOP/s"}},
        .headline = {{.metric = std::string(gemm_ladder_names::bf16_tflops), .place = 2, .priced_as = "BF16 TFLOP/s"},
                     {.metric = std::string(gemm_ladder_names::fp64_tflops), .place = 3}},
        .needs = {Feature::cuda},
    };
    return spec;
}

SHAKEDOWN_REGISTER_SPEC(gemm_ladder_spec);

}  // namespace shakedown::kernels
