// `dgemm_fp64`: C = A * B in FP64 on this rank's device (host BLAS through KokkosKernels,
// or cuBLAS on the bound GPU, directly or with `backend: kokkos` through KokkosBlas), sized so that one repetition lasts at least 50 ms, random
// inputs, every element of C validated by checksums; TFLOP/s against the nominal.
#include "hardware/cpu_nominal.hpp"
#include "hardware/fma_peak.hpp"
#include "hardware/gpu_specs.hpp"
#include "gemm/matrix_fill.hpp"
#include "kernels/specs.hpp"
#include "kernels/common/kernel_backend.hpp"
#include "kernels/dgemm/dgemm_kokkos_device.hpp"
#include "kokkos/kokkos_runtime.hpp"
#include "placement/placement.hpp"
#include "stats/summary.hpp"
#include "gemm/blas_threads.hpp"
#include "gemm/dgemm_engine.hpp"
#include "gemm/gemm_checksum.hpp"

#include "core/communicator.hpp"
#include "core/errors.hpp"
#include "core/registry.hpp"
#include "core/run_context.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <thread>

namespace shakedown::kernels {
namespace {

constexpr std::uint64_t seed_a = 11;
constexpr std::uint64_t seed_b = 23;

double tflops(std::size_t n, double seconds) {
    const double flops = 2.0 * std::pow(static_cast<double>(n), 3);
    return seconds > 0.0 ? flops / seconds * 1e-12 : 0.0;
}

BackendChoice backend_choice(const RunContext& ctx, bool on_gpu) {
    return choose_backend(ctx.params().text("backend"), on_gpu, this_kokkos(), /*host_native=*/false,
                          "built without Kokkos (host DGEMM needs KokkosKernels)");
}

// Where and through what one engine runs.
struct Where {
    placement::Placement placement = placement::Placement::host;
    KernelBackend backend = KernelBackend::native;
};

std::unique_ptr<gemm::DgemmEngine> make_backend(const RunContext& ctx, const Where& where, std::size_t n) {
    if (where.placement == placement::Placement::host) return gemm::make_host_dgemm(n);
    if (where.backend == KernelBackend::kokkos) return make_kokkos_device_dgemm(n, *placement::usable_gpu(ctx));
    return gemm::make_cuda_dgemm(n, *placement::usable_gpu(ctx));
}

// Bytes this rank may spend on three n x n matrices (plus host copies for validation).
std::uint64_t memory_budget(const RunContext& ctx, placement::Placement placement) {
    if (placement == placement::Placement::gpu) return gpu::query_gpu_facts(*placement::usable_gpu(ctx)).memory_bytes / 10 * 8;
    return placement::host_memory_bytes(ctx) / static_cast<std::uint64_t>(ctx.session().identity().local_size) / 4;
}

std::size_t largest_n_for(std::uint64_t bytes) {
    return static_cast<std::size_t>(std::sqrt(static_cast<double>(bytes) / (3.0 * sizeof(double))));
}

// Predicts the order at which one repetition lasts `target_s` from a timing at order n
// (aiming 25 % above, so noise does not land it below), rounded to the granule.
std::size_t predict_n(std::size_t n, double seconds, double target_s, std::size_t granule) {
    const double rate = 2.0 * std::pow(static_cast<double>(n), 3) / seconds;
    const auto predicted = static_cast<std::size_t>(std::cbrt(1.25 * target_s * rate / 2.0));
    return std::max<std::size_t>(granule, (predicted + granule - 1) / granule * granule);
}

std::size_t agreed_max(std::size_t n, MPI_Comm comm) {
    unsigned long long mine = n, agreed = 0;
    MPI_Allreduce(&mine, &agreed, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, comm);
    return static_cast<std::size_t>(agreed);
}

double timed_once(const RunContext& ctx, const Where& where, std::size_t n) {
    auto backend = make_backend(ctx, where, n);
    backend->load(gemm::random_matrix(seed_a, n, n), gemm::random_matrix(seed_b, n, n));
    backend->run_timed();  // first call: library and thread start-up
    return backend->run_timed();
}

// Picks n from a small probe; on the host a second round at the predicted size corrects
// the prediction (a small probe runs from cache and overestimates the rate; on a GPU it
// underestimates it, which only errs long). All ranks
// use the largest choice, so every repetition on every rank lasts at least the target.
std::size_t automatic_n(const RunContext& ctx, const Where& where, double target_s, std::size_t limit) {
    const placement::Placement placement = where.placement;
    const std::size_t granule = placement == placement::Placement::gpu ? 256 : 64;
    const std::size_t floor_n = placement == placement::Placement::gpu ? 8192 : 0;  // cuBLAS reaches its peak from 8192
    limit = std::max(granule, limit / granule * granule);
    std::size_t n = std::min<std::size_t>(placement == placement::Placement::gpu ? 4096 : 256, limit);
    const int rounds = placement == placement::Placement::gpu ? 1 : 2;
    for (int round = 0; round < rounds; ++round) {
        const std::size_t next = std::clamp(predict_n(n, timed_once(ctx, where, n), target_s, granule), std::min(floor_n, limit), limit);
        n = agreed_max(next, ctx.comm());
    }
    return n;
}

struct DgemmNominal {
    std::optional<double> tflops;
    std::string source;
    std::string detail;
};

// `host_ranks`: the ranks running this test on the node's host cores, whose share is this rank's.
DgemmNominal nominal_for(const RunContext& ctx, placement::Placement placement, int host_ranks) {
    if (placement == placement::Placement::gpu) {
        const hardware::GpuNominal gpu = hardware::gpu_nominal(gpu::query_gpu_facts(*placement::usable_gpu(ctx)));
        // cuBLAS DGEMM runs on the FP64 tensor cores where a part has them.
        return {gpu.tflops_for("fp64_tensor"), gpu.derived ? "derived" : "spec table", gpu.part + ": " + gpu.source};
    }
    // This rank's share of the node: its cores (shared with the other host ranks, within its
    // CPU affinity) over the node's.
    const double mine = placement::cores_per_rank(ctx, host_ranks);
    const double share = mine / placement::node_cores(ctx);
    const std::string of = fmt::format("{:.3g} of the node's {:g} cores for this rank ({} rank(s) on them)", mine,
                                       placement::node_cores(ctx), host_ranks);
    if (const auto configured = ctx.params().optional_real("nominal_tflops"))
        return {*configured * share, "config", "nominal_tflops per node x " + of};
    const hardware::CpuNominal cpu = hardware::derive_cpu_nominal(ctx.inventory());
    if (!cpu.node_gflops) return {std::nullopt, "unknown", cpu.explanation};
    return {*cpu.node_gflops * 1e-3 * share, "derived", cpu.explanation + "; " + of};
}

// One rank per core: OpenBLAS gets this rank's whole cores (at least one thread).
int blas_thread_share(const RunContext& ctx, int host_ranks) {
    return std::max(1, static_cast<int>(placement::cores_per_rank(ctx, host_ranks)));
}

std::string inventory_text(const nlohmann::json& inventory, const char* section, const char* field) {
    if (!inventory.contains(section) || !inventory[section].contains(field)) return "unknown";
    const auto& value = inventory[section][field];
    return value.is_string() ? value.get<std::string>() : value.dump();
}

// What one core really does (FMA chains at the widest vector width), beside the derived per-core
// nominal: a measured peak above it shows the nominal undercounts the part (a boost clock the VM
// hides, FMA units the flags cannot tell), and the analyzer says so. One host rank per node
// measures while the others wait: ranks time-sharing cores would each see a fraction of a core.
void add_core_peak(const RunContext& ctx, const Communicator& node_host_ranks, TestResult& result) {
    MPI_Barrier(node_host_ranks.get());
    if (node_host_ranks.rank() == 0) {
        const hardware::FmaPeak peak = hardware::measure_fma_peak(0.2);
        const hardware::CpuNominal cpu = hardware::derive_cpu_nominal(ctx.inventory());
        std::optional<double> per_core;
        if (cpu.node_gflops && cpu.cores > 0) per_core = *cpu.node_gflops / cpu.cores;
        result.add_metric("dgemm_fp64.core_peak_gflops", peak.gflops, per_core);
        result.parameters["core_peak_detail"] = fmt::format(
            "{:.1f} GFLOP/s from {} FMA chains on one core, the node's other ranks idle; derived per core: {}", peak.gflops,
            peak.instructions,
            per_core ? fmt::format("{:.1f} GFLOP/s ({} MHz x {} FLOP/cycle)", *per_core, cpu.max_mhz, cpu.flops_per_cycle)
                     : std::string("unknown"));
    }
    MPI_Barrier(node_host_ranks.get());
}

gemm::MatrixFill fill_of(const TestParams& params) { return *gemm::matrix_fill_from(params.text("fill")); }  // a declared choice

class DgemmFp64Test final : public Test {
public:
    DgemmFp64Test() : Test(dgemm_fp64_spec()) {}
    std::optional<std::string> waiver(const RunContext& ctx) const override {
        const std::string& device = ctx.params().text("device");
        if (auto gpu_waiver = placement::gpu_request_waiver(ctx, device)) return gpu_waiver;
        const bool runs_on_host = device == "host" || (device == "auto" && !placement::usable_gpu(ctx));
        return backend_choice(ctx, !runs_on_host).waiver;
    }

    TestResult run(const RunContext& ctx) const override {
        const placement::Placement placement = placement::choose_placement(ctx, ctx.params().text("device"));
        const Where where{placement, backend_choice(ctx, placement == placement::Placement::gpu).backend};
        const bool on_host = placement == placement::Placement::host;
        const int host_ranks = placement::ranks_sharing_this_node(ctx, on_host);
        const Communicator node_host_ranks = Communicator::split(Communicator::split_shared(ctx.comm()).get(),
                                                                 on_host ? 0 : MPI_UNDEFINED, ctx.session().world_rank());
        const std::size_t limit = largest_n_for(memory_budget(ctx, placement));
        const std::optional<std::int64_t> requested_n = ctx.params().optional_integer("n");
        if (requested_n && static_cast<std::size_t>(*requested_n) > limit)
            throw InputError(fmt::format("dgemm_fp64: n={} needs {:.1f} GiB for three matrices; at most n={} fits here",
                                         *requested_n, 3.0 * 8 * *requested_n * *requested_n / 1073741824.0, limit));
        const double target_s = ctx.params().real("min_rep_s");
        const std::int64_t repetitions = ctx.params().integer("repetitions");

        std::optional<gemm::BlasThreadShare> blas_threads;
        if (placement == placement::Placement::host) blas_threads.emplace(blas_thread_share(ctx, host_ranks));

        const std::size_t n = requested_n ? static_cast<std::size_t>(*requested_n) : automatic_n(ctx, where, target_s, limit);
        const gemm::MatrixFill fill = fill_of(ctx.params());
        const std::vector<double> a = gemm::random_matrix(seed_a, n, n, fill);
        const std::vector<double> b = gemm::random_matrix(seed_b, n, n, fill);
        auto backend = make_backend(ctx, where, n);
        backend->load(a, b);
        backend->run_timed();  // warm-up: library initialisation, clocks ramping up

        TestResult result;
        result.samples = SampleTable(dgemm_fp64_spec().samples);
        std::vector<double> rates;
        for (std::int64_t rep = 0; rep < repetitions; ++rep) {
            MPI_Barrier(ctx.comm());
            double seconds = backend->run_timed();
            if (const double delay = ctx.faults().delay_s(); delay > 0.0) {  // planted slowness
                std::this_thread::sleep_for(std::chrono::duration<double>(delay));
                seconds += delay;
            }
            rates.push_back(tflops(n, seconds));
            result.samples.add_row({static_cast<double>(rep), seconds, rates.back()});
        }

        if (ctx.faults().corrupt()) backend->corrupt(n / 3, n / 2);
        const gemm::GemmCheck check = gemm::check_gemm_by_checksums(a, b, backend->result(), n, n, n);
        if (!check.ok()) result.fail("dgemm_fp64 produced a wrong product: " + gemm::describe_failure(check));

        const DgemmNominal nominal = nominal_for(ctx, placement, host_ranks);
        const stats::Summary spread = stats::summarize(rates);
        result.add_metric("dgemm_fp64.tflops", spread.median, nominal.tflops);
        result.add_metric("dgemm_fp64.tflops_max", spread.max, nominal.tflops);
        result.add_metric("dgemm_fp64.tflops_min", spread.min, nominal.tflops);

        result.parameters["device"] = std::string(to_string(placement));
        result.parameters["backend"] = backend->name();
        result.parameters["n_used"] = std::to_string(n);
        result.parameters["fill"] = to_string(fill);
        result.parameters["repetitions_used"] = std::to_string(repetitions);
        result.parameters["nominal_source"] = nominal.source;
        result.parameters["nominal_detail"] = nominal.detail;
        result.parameters["checksum_worst_ratio"] = fmt::format("{:.3g}", check.worst_column_error);
        if (placement == placement::Placement::host) {
            add_core_peak(ctx, node_host_ranks, result);
            result.parameters["blas_library"] = inventory_text(ctx.inventory(), "blas", "library");
            result.parameters["openblas_core"] = inventory_text(ctx.inventory(), "blas", "openblas_core");
            result.parameters["openblas_core_in_use"] = gemm::BlasThreadShare::openblas_core().value_or("not OpenBLAS");
            result.parameters["blas_threads"] =
                blas_threads->threads() ? std::to_string(*blas_threads->threads()) : std::string("not OpenBLAS");
        }
        return result;
    }
};

SHAKEDOWN_REGISTER_TEST(DgemmFp64Test);

}  // namespace
}  // namespace shakedown::kernels
