// `lu_fp64`: how much FP64 a solver gets, the way acceptance protocols quote it (HPL): LU with
// partial pivoting and the solve of a random n x n system, timed together, HPL's rate and its
// scaled residual, which must stay below 16 for the answer to count. On the host one LU spans
// all the test's host ranks (ScaLAPACK over a P x Q grid); each bound GPU factors its own
// (cuSOLVER). n is chosen from memory and from a probe's rate so that one factorization lasts
// about target_s.
#include "kernels/lu/lu_engine.hpp"
#include "kernels/lu/lu_fp64_names.hpp"
#include "kernels/lu/lu_grid.hpp"
#include "kernels/lu/lu_math.hpp"
#include "kernels/specs.hpp"
#include "placement/placement_names.hpp"

#include "core/clock.hpp"
#include "core/communicator.hpp"
#include "core/errors.hpp"
#include "core/registry.hpp"
#include "core/run_context.hpp"
#include "gemm/blas_threads.hpp"
#include "gpu/gpu_facts.hpp"
#include "hardware/cpu_nominal.hpp"
#include "hardware/gpu_specs.hpp"
#include "placement/placement.hpp"
#include "stats/summary.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <thread>

namespace shakedown::kernels {
namespace {

constexpr std::uint64_t warmup_seed = 5;
constexpr std::uint64_t first_seed = 101;

// The largest order whose matrix fits `bytes`, a multiple of `granule` (the engines keep one
// matrix: the residual's A is generated again over the factors, as HPL does).
std::size_t largest_n_for(double bytes, std::size_t granule) {
    const auto n = static_cast<std::size_t>(std::sqrt(std::max(0.0, bytes) / sizeof(double)));
    return std::max(granule, n / granule * granule);
}

// The order at which a factorization lasts `target_s`, from a probe at `n` that took `seconds`.
std::size_t predicted_n(std::size_t n, double seconds, double target_s, std::size_t granule) {
    const double rate = lu::hpl_flops(static_cast<double>(n)) / std::max(seconds, 1e-9);
    const auto predicted = static_cast<std::size_t>(std::cbrt(1.5 * target_s * rate));
    return std::max(granule, predicted / granule * granule);
}

struct Plan {
    placement::Placement placement = placement::Placement::host;
    std::size_t n = 0;
    lu::ProcessGrid grid;
    std::size_t limit = 0;  // the largest n memory allows
};

class LuFp64Test final : public Test {
public:
    LuFp64Test() : Test(lu_fp64_spec()) {}

    std::optional<std::string> waiver(const RunContext& ctx) const override {
        const std::string& device = ctx.params().text(placement::names::device);
        if (auto gpu_waiver = placement::gpu_request_waiver(ctx, device)) return gpu_waiver;
        const bool on_host = device == "host" || (device == "auto" && !placement::usable_gpu(ctx));
        if (on_host && !lu::host_lu_built()) return std::string("built without ScaLAPACK (the host LU needs it)");
        if (!on_host && !lu::gpu_lu_built()) return std::string("built without CUDA (the GPU LU needs cuSOLVER)");
        return std::nullopt;
    }

    TestResult run(const RunContext& ctx) const override {
        const placement::Placement where = placement::choose_placement(ctx, ctx.params().text(placement::names::device));
        const bool on_host = where == placement::Placement::host;
        // The host ranks factor one matrix together; every GPU rank its own.
        const Communicator host_ranks = Communicator::split(ctx.comm(), on_host ? 0 : MPI_UNDEFINED, ctx.rank());
        // OpenBLAS would start a thread per core in every rank: 4 ranks on 16 cores ran the LU at
        // 0.12 GFLOP/s. Each rank gets its share of its node's cores for the test's length.
        std::optional<gemm::BlasThreadShare> blas_threads;
        if (on_host)
            blas_threads.emplace(std::max(1, static_cast<int>(placement::cores_per_rank(
                                                 ctx, placement::ranks_sharing_this_node(ctx, true)))));
        const Plan plan = make_plan(ctx, where, host_ranks);
        auto engine = make_engine(ctx, where, host_ranks, plan.grid, plan.n);
        engine->solve(warmup_seed, false);  // library start-up, clocks ramping up

        TestResult result;
        result.samples = SampleTable(lu_fp64_spec().samples);
        std::vector<double> rates;
        std::vector<double> solve_seconds;
        double worst_residual = 0.0;
        TimeWindow measured{now_utc(), 0.0};  // the timed solves (their residual checks between), for their energy
        const std::int64_t repetitions = ctx.params().integer("repetitions");
        for (std::int64_t rep = 0; rep < repetitions; ++rep) {
            const bool corrupt = ctx.faults().corrupt() && rep == 0;
            lu::LuOutcome outcome = engine->solve(first_seed + static_cast<std::uint64_t>(rep), corrupt);
            if (const double delay = ctx.faults().delay_s(); delay > 0.0) {  // planted slowness
                std::this_thread::sleep_for(std::chrono::duration<double>(delay));
                outcome.seconds += delay;
            }
            const double n = static_cast<double>(plan.n);
            if (outcome.info != 0) {
                result.fail(fmt::format("lu_fp64: the factorization of n={} found U({},{}) exactly zero (info {}): a "
                                        "random matrix is not singular, the arithmetic is wrong",
                                        plan.n, outcome.info, outcome.info, outcome.info));
                break;
            }
            const double residual = lu::scaled_residual(outcome.residual_norm, outcome.matrix_norm,
                                                        outcome.solution_norm, outcome.rhs_norm, n);
            worst_residual = std::max(worst_residual, std::isfinite(residual) ? residual : 1e300);
            rates.push_back(lu::hpl_tflops(n, outcome.seconds));
            solve_seconds.push_back(outcome.seconds);
            result.samples.add_row({static_cast<double>(rep), outcome.seconds, rates.back(), residual});
            if (!(residual < lu::residual_limit))
                result.fail(fmt::format("lu_fp64: wrong solution in repetition {}: scaled residual "
                                        "||Ax-b||oo/(eps(||A||oo||x||oo+||b||oo)n) = {:.3g}, HPL's limit {} "
                                        "(||Ax-b||oo {:.3g}, ||A||oo {:.3g}, ||x||oo {:.3g}, ||b||oo {:.3g}, n {})",
                                        rep, residual, lu::residual_limit, outcome.residual_norm, outcome.matrix_norm,
                                        outcome.solution_norm, outcome.rhs_norm, plan.n));
        }
        measured.end_utc = now_utc();
        result.measured = measured;
        const std::optional<double> nominal = nominal_tflops(ctx, where, host_ranks);
        if (!rates.empty()) {
            const stats::Summary spread = stats::summarize(rates);
            result.add_metric(std::string(lu_names::tflops), spread.median, nominal);
            result.add_metric(std::string(lu_names::tflops_max), spread.max, nominal);
            result.add_metric(std::string(lu_names::tflops_min), spread.min, nominal);
            result.add_metric(std::string(lu_names::solve_s), stats::median(solve_seconds));
            result.add_metric(std::string(lu_names::scaled_residual), worst_residual);
        }
        result.parameters[placement::names::device] = std::string(to_string(where));
        result.parameters["backend"] = engine->name();
        result.parameters["block_used"] = std::to_string(block_size(ctx, where));
        if (!on_host) result.parameters["gpu_algorithm_used"] = to_string(gpu_algorithm(ctx));
        result.parameters["n_used"] = std::to_string(plan.n);
        result.parameters["n_memory_limit"] = std::to_string(plan.limit);
        result.parameters["memory_fraction_used"] = fmt::format("{}", memory_fraction(ctx, where));
        result.parameters["target_s_used"] = fmt::format("{}", target_s(ctx, where));
        if (on_host) {
            result.parameters[std::string(lu_names::grid_used)] = lu::to_string(plan.grid);
            result.parameters["blas_threads"] =
                blas_threads->threads() ? std::to_string(*blas_threads->threads()) : std::string("not OpenBLAS");
        }
        result.parameters["rate_convention"] = "HPL: (2/3 n^3 + 2 n^2) / (factorization + solve seconds), the slowest rank";
        return result;
    }

private:
    static int block_size(const RunContext& ctx, placement::Placement where) {
        const std::optional<std::int64_t> given = ctx.params().optional_integer("block");
        return given ? static_cast<int>(*given)
                     : where == placement::Placement::host ? lu::default_host_block : lu::default_gpu_block;
    }

    static double memory_fraction(const RunContext& ctx, placement::Placement where) {
        return ctx.params().optional_real("memory_fraction")
            .value_or(where == placement::Placement::gpu ? lu::default_gpu_memory_fraction : lu::default_host_memory_fraction);
    }

    static double target_s(const RunContext& ctx, placement::Placement where) {
        return ctx.params().optional_real("target_s")
            .value_or(where == placement::Placement::gpu ? lu::default_gpu_target_s : lu::default_host_target_s);
    }

    static lu::GpuLuAlgorithm gpu_algorithm(const RunContext& ctx) {
        return *lu::parse_gpu_algorithm(ctx.params().text("gpu_algorithm"));  // a declared choice
    }

    static std::unique_ptr<lu::LuEngine> make_engine(const RunContext& ctx, placement::Placement where,
                                                     const Communicator& host_ranks, lu::ProcessGrid grid, std::size_t n) {
        if (where == placement::Placement::host) return lu::make_host_lu(host_ranks.get(), n, block_size(ctx, where), grid);
        return lu::make_gpu_lu(*placement::usable_gpu(ctx), n, gpu_algorithm(ctx), block_size(ctx, where));
    }

    static Plan make_plan(const RunContext& ctx, placement::Placement where, const Communicator& host_ranks) {
        Plan plan;
        plan.placement = where;
        const double fraction = memory_fraction(ctx, where);
        const std::size_t granule = where == placement::Placement::gpu ? 256 : 16;
        if (where == placement::Placement::gpu) {
            plan.limit = largest_n_for(fraction * static_cast<double>(gpu::query_gpu_facts(*placement::usable_gpu(ctx)).memory_bytes),
                                       granule);
        } else {
            const int ranks = host_ranks.size();
            plan.grid = ctx.params().is_auto("grid") ? lu::squarest_grid(ranks) : *lu::parse_grid(ctx.params().text("grid"));
            // Each rank's share of its node's memory, the matrix spread over all of them.
            const int on_node = placement::ranks_sharing_this_node(ctx, true);
            double mine = fraction * static_cast<double>(placement::host_memory_bytes(ctx)) / std::max(1, on_node);
            double total = 0.0;
            MPI_Allreduce(&mine, &total, 1, MPI_DOUBLE, MPI_SUM, host_ranks.get());
            plan.limit = largest_n_for(total, granule);
        }
        if (const auto given = ctx.params().optional_integer("n")) {
            if (static_cast<std::size_t>(*given) > plan.limit)
                throw InputError(fmt::format("lu_fp64: n={} needs {:.1f} GiB for the matrix; memory_fraction {} "
                                             "allows at most n={} here",
                                             *given, 8.0 * static_cast<double>(*given) * static_cast<double>(*given) / 1073741824.0,
                                             fraction, plan.limit));
            plan.n = static_cast<std::size_t>(*given);
            return plan;
        }
        // Two probes: a small one, then one at its prediction (a small LU runs far below the rate
        // of a large one: on an H200 the n 8192 probe predicted 23808 for 3 s, which took 0.32 s),
        // then the order for target_s (the host ranks agree: they time one matrix together).
        std::size_t n = std::min<std::size_t>(where == placement::Placement::gpu ? 8192 : 512, plan.limit);
        for (int round = 0; round < 2; ++round) {
            auto probe = make_engine(ctx, where, host_ranks, plan.grid, n);  // the algorithm timed later
            if (round == 0) probe->solve(warmup_seed, false);
            const double seconds = probe->solve(warmup_seed + 1, false).seconds;
            const std::size_t next = std::min(plan.limit, std::max(n, predicted_n(n, seconds, target_s(ctx, where), granule)));
            if (next == n) break;
            n = next;
        }
        plan.n = n;
        return plan;
    }

    // The FP64 peak the rate is judged against: the GPU's FP64 tensor figure, or the host ranks'
    // shares of their nodes' derived FP64 peak, summed over the ranks that factor together.
    static std::optional<double> nominal_tflops(const RunContext& ctx, placement::Placement where,
                                                const Communicator& host_ranks) {
        if (where == placement::Placement::gpu)
            return hardware::gpu_nominal(gpu::query_gpu_facts(*placement::usable_gpu(ctx))).tflops_for("fp64_tensor");
        const hardware::CpuNominal cpu = hardware::derive_cpu_nominal(ctx.inventory());
        const int on_node = placement::ranks_sharing_this_node(ctx, true);
        double mine = cpu.node_gflops ? *cpu.node_gflops * 1e-3 * placement::cores_per_rank(ctx, on_node) /
                                            placement::node_cores(ctx)
                                      : -1.0;
        double least = 0.0, total = 0.0;
        MPI_Allreduce(&mine, &least, 1, MPI_DOUBLE, MPI_MIN, host_ranks.get());
        MPI_Allreduce(&mine, &total, 1, MPI_DOUBLE, MPI_SUM, host_ranks.get());
        if (least < 0.0) return std::nullopt;  // a rank's CPU has no derivable peak
        return total;
    }
};

SHAKEDOWN_REGISTER_TEST(LuFp64Test);

}  // namespace
}  // namespace shakedown::kernels
