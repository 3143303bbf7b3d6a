// `gemm_ladder` (GPU): cuBLAS GEMM at fp64, fp32 (pedantic, no TF32), tf32, bf16, fp16 and
// fp8 e4m3 on the bound GPU, random data, each rung autotuned over cublasGemmEx and cuBLASLt's
// top heuristic algorithms, sampled entries validated against an FP64 host reference, TFLOP/s
// (median of the timed repetitions, a short burst) against each precision's nominal. Beside
// fp64 and fp32 their cuBLAS 13 emulations (fixed-point FP64, BF16x9 FP32), each also compared
// over the whole matrix with the native product of the same inputs.
#include "hardware/gpu_specs.hpp"
#include "kernels/ladder/ladder_backend.hpp"
#include "kernels/ladder/ladder_precisions.hpp"
#include "kernels/specs.hpp"
#include "placement/placement.hpp"
#include "placement/placement_names.hpp"
#include "stats/summary.hpp"

#include "core/errors.hpp"
#include "core/registry.hpp"
#include "core/run_context.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <map>
#include <thread>
#include <tuple>

namespace shakedown::kernels {
namespace {

// The rungs' options from the parameters; refuses an n whose largest rung (fp64: three n x n
// matrices of 8 bytes; fp64_emulated at emulated_n: four, the native product beside it) would
// not fit with room to spare.
LadderRunOptions plan_ladder(const TestParams& params, const gpu::GpuFacts& facts) {
    const std::int64_t n = params.integer("n");
    const std::int64_t emulated_n = params.optional_integer("emulated_n").value_or(n);
    const auto fits = [&](std::int64_t order, double matrices) {
        return matrices * 8.0 * static_cast<double>(order) * static_cast<double>(order) <=
               0.8 * static_cast<double>(facts.memory_bytes);
    };
    for (const auto& [name, order, matrices] :
         {std::tuple{"n", n, 3.0}, std::tuple{"emulated_n", emulated_n, 4.0}})
        if (!fits(order, matrices))
            throw InputError(fmt::format("gemm_ladder: {}={} does not fit in {}'s {:.1f} GiB", name, order, facts.name,
                                         facts.memory_bytes / 1073741824.0));
    LadderRunOptions options;
    options.n = static_cast<std::size_t>(n);
    options.repetitions = params.integer("repetitions");
    options.warmup = params.integer("warmup");
    options.samples = static_cast<std::size_t>(params.integer("samples"));
    options.autotune = {static_cast<int>(params.integer("autotune_candidates")),
                        static_cast<int>(params.integer("autotune_rounds")), params.real("autotune_budget_s")};
    options.cooldown_s = params.real("cooldown_s");
    options.fp8_fast_accumulation = params.flag("fp8_fast_accumulation");
    if (const auto bits = params.optional_integer("fp64_emulation_mantissa_bits"))
        options.fp64_emulation_mantissa_bits = static_cast<int>(*bits);
    return options;
}

// One measured rung: its repetitions as sample rows (planted delay added), the median and best
// TFLOP/s against the rung's nominal, what ran, and whether the sampled entries were right.
double report_rung(const RunContext& ctx, LadderPrecision precision, const LadderRunResult& run,
                   const LadderRunOptions& options, const hardware::GpuNominal& nominal, TestResult& result) {
    const LadderRung& info = rung(precision);
    std::vector<double> rates;
    const double flops = 2.0 * std::pow(static_cast<double>(options.n), 3);
    for (std::size_t rep = 0; rep < run.seconds.size(); ++rep) {
        double seconds = run.seconds[rep];
        if (const double delay = ctx.faults().delay_s(); delay > 0.0) {  // planted slowness
            std::this_thread::sleep_for(std::chrono::duration<double>(delay));
            seconds += delay;
        }
        rates.push_back(flops / seconds * 1e-12);
        result.samples.add_row({static_cast<double>(precision), static_cast<double>(rep), seconds, rates.back()});
    }
    const stats::Summary spread = stats::summarize(rates);
    const auto rung_nominal = info.nominal_key.empty() ? std::nullopt : nominal.tflops_for(info.nominal_key);
    // The emulated rungs have no datasheet figure (nominal_key empty): no nominal, shown and
    // fleet-compared; their rate beside the native rung's is in <rung>_over_native.
    result.add_metric(fmt::format("gemm_ladder.{}_tflops", info.name), spread.median, rung_nominal);
    result.add_metric(fmt::format("gemm_ladder.{}_tflops_max", info.name), spread.max, rung_nominal);
    if (run.max_rel_error_vs_native) {
        result.add_metric(fmt::format("gemm_ladder.{}_max_rel_error_vs_native", info.name), *run.max_rel_error_vs_native);
        result.parameters[fmt::format("{}_tolerance_vs_native", info.name)] = fmt::format("{:.3g}", run.tolerance_vs_native);
    }
    if (info.native != precision) result.parameters[fmt::format("{}_n", info.name)] = std::to_string(options.n);
    result.parameters[fmt::format("{}_types", info.name)] = std::string(info.what);
    result.parameters[fmt::format("{}_worst_error_ratio", info.name)] = fmt::format("{:.3g}", run.worst_error);
    // Below 1 when the GPU slowed within the burst (power cap): the median is a short burst.
    result.parameters[fmt::format("{}_last_over_first_rep", info.name)] = fmt::format("{:.3f}", last_over_first(run.seconds));
    for (const auto& [key, value] : run.details) result.parameters[fmt::format("{}_{}", info.name, key)] = value;
    if (!run.failure.empty()) result.fail(fmt::format("{} GEMM wrong: {}", info.name, run.failure));
    return spread.median;
}

class GemmLadderTest final : public Test {
public:
    GemmLadderTest() : Test(gemm_ladder_spec()) {}
    std::optional<std::string> waiver(const RunContext& ctx) const override {
        return placement::gpu_only_waiver(ctx);
    }

    TestResult run(const RunContext& ctx) const override {
        const auto precisions = in_ladder_order(ctx.params().names("precisions"));
        const int device = *placement::usable_gpu(ctx);
        const gpu::GpuFacts facts = gpu::query_gpu_facts(device);
        LadderRunOptions options = plan_ladder(ctx.params(), facts);
        const hardware::GpuNominal nominal = hardware::gpu_nominal(facts);
        const bool has_fp8 = facts.compute_major > 8 || (facts.compute_major == 8 && facts.compute_minor >= 9);

        TestResult result;
        result.samples = SampleTable(gemm_ladder_spec().samples);
        std::string rung_ids;
        std::map<LadderPrecision, double> median_tflops;  // for an emulated rung's <rung>_over_native
        const auto emulated_n = static_cast<std::size_t>(
            ctx.params().optional_integer("emulated_n").value_or(static_cast<std::int64_t>(options.n)));
        for (const LadderPrecision precision : precisions) {
            const LadderRung& info = rung(precision);
            rung_ids += fmt::format("{}{} {}", rung_ids.empty() ? "" : ", ", static_cast<int>(precision), info.name);
            if (precision == LadderPrecision::fp8 && !has_fp8) {
                result.parameters["fp8_status"] = fmt::format("not measured: compute capability {}.{} has no fp8 tensor cores",
                                                              facts.compute_major, facts.compute_minor);
                continue;
            }
            options.corrupt = ctx.faults().corrupt() && precision == precisions.front();
            LadderRunOptions rung_options = options;
            if (is_emulated(precision)) rung_options.n = emulated_n;
            MPI_Barrier(ctx.comm());
            // One rung the library cannot run (an unsupported type combination, say) fails that
            // rung with the library's words; the other precisions are still measured.
            try {
                const double rate =
                    report_rung(ctx, precision, run_ladder_rung(precision, rung_options, device), rung_options, nominal, result);
                median_tflops[precision] = rate;
                const auto native = median_tflops.find(info.native);
                if (is_emulated(precision) && native != median_tflops.end() && native->second > 0.0)
                    result.parameters[fmt::format("{}_over_native", info.name)] =
                        fmt::format("{:.3f}{}", rate / native->second,
                                    rung_options.n == options.n ? "" : fmt::format(" (n {} vs {})", rung_options.n, options.n));
            } catch (const RungNotSupported& refused) {
                result.parameters[fmt::format("{}_status", info.name)] = fmt::format("not measured: {}", refused.what());
            } catch (const std::exception& error) {
                result.fail(fmt::format("{}: {}", info.name, error.what()));
            }
        }
        result.parameters[placement::names::device] = placement::names::ran_on_gpu;
        result.parameters["gpu"] = facts.name;
        result.parameters["nominal_source"] = nominal.derived ? "derived" : "spec table";
        result.parameters["nominal_detail"] = nominal.part + ": " + nominal.source;
        result.parameters["precision_ids"] = rung_ids;
        return result;
    }
};

SHAKEDOWN_REGISTER_TEST(GemmLadderTest);

}  // namespace
}  // namespace shakedown::kernels
