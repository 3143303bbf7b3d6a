#include "kernels/specs.hpp"
#include "kernels/common/kernel_backend.hpp"
#include "kernels/dgemm/dgemm_fp64_names.hpp"
#include "placement/placement_names.hpp"

#include "core/input_limits.hpp"
#include "core/registry.hpp"

namespace shakedown::kernels {

namespace names = dgemm_names;

const TestSpec& dgemm_fp64_spec() {
    static const TestSpec spec{
        .key = std::string(names::key),
        .description = "FP64 DGEMM (host BLAS via KokkosKernels, cuBLAS on GPUs directly or via KokkosBlas), "
                       "checksum-validated, TFLOP/s vs nominal",
        .suites = {"quick", "full"},
        .parameters =
            {
                placement::names::device_parameter(),
                backend_parameter(),
                ParamSpec::integer("n", automatic, "matrix order")
                    .allow_auto("chosen so one repetition lasts >= min_rep_s")
                    .between(1, 1 << 20),
                ParamSpec::real("min_rep_s", 0.05, "shortest repetition the automatic size aims for, seconds")
                    .above(0)
                    .at_most(input_limits::max_deadline_s),
                ParamSpec::integer("repetitions", 10, "timed repetitions after one warm-up")
                    .at_least(1)
                    .in_suite("quick", 5),
                ParamSpec::real("nominal_tflops", automatic, "host FP64 peak per node in TFLOP/s")
                    .allow_auto("measured: the cores' FMA peak at the BLAS kernel's vector width")
                    .above(0),
                ParamSpec::choice(
                    "fill", "uniform", {"uniform", "small_integers"},
                    "input entries: uniform (random in [-1,1), 53 bits) or small_integers (-2,-1,1,2: less power drawn)"),
            },
        .metrics =
            {
                {std::string(names::tflops), "TFLOP/s", Better::higher, "median rate of the repetitions"},
                {"dgemm_fp64.{tflops_max,tflops_min}", "TFLOP/s", Better::higher, "best and worst repetition"},
                {std::string(names::core_peak_gflops), "GFLOP/s", Better::higher,
                 "host runs: one core's measured FP64 FMA peak at the CPU's widest vectors, beside the derived per-core "
                 "figure"},
            },
        .samples = {{"repetition", "count"}, {"seconds", "s"}, {"tflops", "TFLOP/s"}},
        .headline = {{.metric = std::string(names::tflops), .place = 0, .priced_as = "FP64 TFLOP/s"}},
    };
    return spec;
}

SHAKEDOWN_REGISTER_SPEC(dgemm_fp64_spec);

}  // namespace shakedown::kernels
