// `dgemm_fp64`: C = A * B in FP64 on this rank's device (host BLAS through KokkosKernels,
// or cuBLAS on the bound GPU, directly or with `backend: kokkos` through KokkosBlas), sized so that one repetition lasts at least 50 ms, random
// inputs, every element of C validated by checksums; TFLOP/s against the nominal.
#include "core/json_text.hpp"
#include "gemm/blas_threads.hpp"
#include "gemm/dgemm_engine.hpp"
#include "gemm/gemm_checksum.hpp"
#include "gemm/matrix_fill.hpp"
#include "hardware/cpu_nominal.hpp"
#include "hardware/fma_peak.hpp"
#include "hardware/gpu_specs.hpp"
#include "hardware/vector_isa.hpp"
#include "kernels/common/kernel_backend.hpp"
#include "kernels/dgemm/dgemm_fp64_names.hpp"
#include "kernels/dgemm/dgemm_kokkos_device.hpp"
#include "kernels/specs.hpp"
#include "kokkos/kokkos_runtime.hpp"
#include "placement/placement.hpp"
#include "placement/placement_names.hpp"
#include "stats/summary.hpp"

#include "core/clock.hpp"
#include "core/communicator.hpp"
#include "core/errors.hpp"
#include "core/registry.hpp"
#include "core/run_context.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
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

// What the host's FMA units really do, measured beside the DGEMM (after it, the clocks as warm).
struct HostPeaks {
    // This rank's BLAS threads running FMA chains at the BLAS kernel's width, every host rank of
    // the node at once: the cores' rate under the load the DGEMM put on them, at the width the
    // library computes at. The honest reference for the DGEMM (a clock the VM hides, a kernel
    // narrower than the CPU by the library's choice are in it; the library's misdetection is
    // the analyzer's to report, from the inventory).
    hardware::FmaPeak rank;
    // The node's first host rank alone, one core at the CPU's widest vectors: what the core does
    // beside the datasheet-style derived figure.
    std::optional<hardware::FmaPeak> core;
};

// The width the BLAS's DGEMM kernels compute at: OpenBLAS's kernel family in use; another BLAS
// (no family to read) is taken at the widest the CPU offers.
std::optional<hardware::VectorIsa> blas_kernel_width() {
    if (const auto core = gemm::BlasThreadShare::openblas_core()) return hardware::isa_of_openblas_core(*core);
    return std::nullopt;
}

HostPeaks measure_host_peaks(const Communicator& node_host_ranks, int threads) {
    HostPeaks peaks;
    MPI_Barrier(node_host_ranks.get());
    peaks.rank = hardware::measure_fma_peak_on_threads(0.3, blas_kernel_width(), threads);
    MPI_Barrier(node_host_ranks.get());
    if (node_host_ranks.rank() == 0) peaks.core = hardware::measure_fma_peak(0.2);
    MPI_Barrier(node_host_ranks.get());
    return peaks;
}

std::string derived_text(const RunContext& ctx, double share, const std::string& of) {
    const hardware::CpuNominal cpu = hardware::derive_cpu_nominal(ctx.inventory());
    if (!cpu.node_gflops) return "derived: " + cpu.explanation;
    return fmt::format("derived {:.1f} GFLOP/s ({}; {})", *cpu.node_gflops * share, cpu.explanation, of);
}

// `host_ranks`: the ranks running this test on the node's host cores, whose share is this rank's.
DgemmNominal nominal_for(const RunContext& ctx, placement::Placement placement, int host_ranks,
                         const std::optional<HostPeaks>& peaks, int threads) {
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
    const auto core = gemm::BlasThreadShare::openblas_core();
    return {peaks->rank.gflops * 1e-3, "measured",
            fmt::format("{:.1f} GFLOP/s measured: FMA chains at {} ({}) on this rank's {} thread(s), every host rank "
                        "of the node at once; {}",
                        peaks->rank.gflops, peaks->rank.instructions,
                        core ? fmt::format("the width of OpenBLAS's {} kernels", *core)
                             : std::string("the CPU's widest: the BLAS's kernels are not known"),
                        threads, derived_text(ctx, share, of))};
}

// One rank per core: OpenBLAS gets this rank's whole cores (at least one thread).
int blas_thread_share(const RunContext& ctx, int host_ranks) {
    return std::max(1, static_cast<int>(placement::cores_per_rank(ctx, host_ranks)));
}

std::string inventory_text(const nlohmann::json& inventory, const char* section, const char* field) {
    if (!inventory.contains(section) || !inventory[section].contains(field)) return "unknown";
    const auto& value = inventory[section][field];
    return value.is_string() ? value.get<std::string>() : json_text(value);
}

// How the BLAS kernels in use fit this CPU, in one line for the report (the analyzer judges the
// same from the inventory: a misdetection is configuration to fix).
std::string blas_kernel_fit(const RunContext& ctx) {
    const auto core = gemm::BlasThreadShare::openblas_core();
    if (!core) return "not OpenBLAS: its kernels' width is not known";
    const char* forced = std::getenv("OPENBLAS_CORETYPE");
    const nlohmann::json& inventory = ctx.inventory();
    const nlohmann::json cpu = inventory.contains("cpu") ? inventory["cpu"] : nlohmann::json::object();
    const hardware::BlasKernelJudgement judgement =
        hardware::judge_blas_kernel(*core, forced != nullptr ? forced : "", cpu.value("flags", nlohmann::json::array()),
                                    cpu.value("model", std::string()));
    if (judgement.fit == hardware::BlasKernelFit::full_width)
        return fmt::format("OpenBLAS's {} kernels use the CPU's widest vectors ({})", *core, to_string(*judgement.kernel));
    if (judgement.fit == hardware::BlasKernelFit::unknown)
        return fmt::format("OpenBLAS's {} kernels: their width or the CPU's is not known", *core);
    return judgement.text;
}

// One core's measured peak beside the derived per-core figure. Above it, the derived figure
// undercounts the core (a boost clock the VM hides): said in the detail, not judged, since the
// DGEMM is judged against the measured peak. Above any core's physical ceiling, the measurement
// is broken: the test fails, cause software.
void add_core_peak(const RunContext& ctx, const HostPeaks& peaks, int threads, TestResult& result) {
    for (const hardware::FmaPeak* peak : {&peaks.rank, peaks.core ? &*peaks.core : nullptr}) {
        if (peak == nullptr) continue;
        const double ceiling = hardware::fma_peak_ceiling_gflops(*peak) * (peak == &peaks.rank ? threads : 1);
        if (!(peak->gflops > 0.0) || peak->gflops > ceiling) {
            result.fail(fmt::format("dgemm_fp64: the FMA peak measured {:.1f} GFLOP/s at {}, outside (0, {:.0f}] (two units "
                                    "at {} GHz): the timer or the measurement is broken, no reference to judge by",
                                    peak->gflops, peak->instructions, ceiling, hardware::highest_plausible_core_ghz));
            result.cause = Cause::software;
        }
    }
    if (!peaks.core) return;
    const hardware::CpuNominal cpu = hardware::derive_cpu_nominal(ctx.inventory());
    std::optional<double> per_core;
    if (cpu.node_gflops && cpu.cores > 0) per_core = *cpu.node_gflops / cpu.cores;
    result.add_metric(std::string(dgemm_names::core_peak_gflops), peaks.core->gflops, per_core);
    std::string undercount;
    if (per_core && cpu.flops_per_cycle > 0 && peaks.core->gflops > 1.05 * *per_core)
        undercount = fmt::format("; the derived figure undercounts this core: it runs as if at {:.0f} MHz",
                                 peaks.core->gflops / cpu.flops_per_cycle * 1e3);
    result.parameters["core_peak_detail"] = fmt::format(
        "{:.1f} GFLOP/s from {} FMA chains on one core, the node's other ranks idle; derived per core: {}{}",
        peaks.core->gflops, peaks.core->instructions,
        per_core ? fmt::format("{:.1f} GFLOP/s ({} MHz x {} FLOP/cycle)", *per_core, cpu.max_mhz, cpu.flops_per_cycle)
                 : std::string("unknown"),
        undercount);
}

gemm::MatrixFill fill_of(const TestParams& params) { return *gemm::matrix_fill_from(params.text("fill")); }  // a declared choice

class DgemmFp64Test final : public Test {
public:
    DgemmFp64Test() : Test(dgemm_fp64_spec()) {}
    std::optional<std::string> waiver(const RunContext& ctx) const override {
        const std::string& device = ctx.params().text(placement::names::device);
        if (auto gpu_waiver = placement::gpu_request_waiver(ctx, device)) return gpu_waiver;
        const bool runs_on_host = device == "host" || (device == "auto" && !placement::usable_gpu(ctx));
        return backend_choice(ctx, !runs_on_host).waiver;
    }

    TestResult run(const RunContext& ctx) const override {
        const placement::Placement placement = placement::choose_placement(ctx, ctx.params().text(placement::names::device));
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
        const int host_threads = on_host ? blas_thread_share(ctx, host_ranks) : 0;  // this rank's BLAS threads
        if (on_host) blas_threads.emplace(host_threads);

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
        TimeWindow measured;  // the timed repetitions, for their energy
        for (std::int64_t rep = 0; rep < repetitions; ++rep) {
            MPI_Barrier(ctx.comm());
            if (rep == 0) measured.start_utc = now_utc();
            double seconds = backend->run_timed();
            if (const double delay = ctx.faults().delay_s(); delay > 0.0) {  // planted slowness
                std::this_thread::sleep_for(std::chrono::duration<double>(delay));
                seconds += delay;
            }
            rates.push_back(tflops(n, seconds));
            result.samples.add_row({static_cast<double>(rep), seconds, rates.back()});
        }
        measured.end_utc = now_utc();
        result.measured = measured;

        if (ctx.faults().corrupt()) backend->corrupt(n / 3, n / 2);
        const gemm::GemmCheck check = gemm::check_gemm_by_checksums(a, b, backend->result(), n, n, n);
        if (!check.ok()) result.fail("dgemm_fp64 produced a wrong product: " + gemm::describe_failure(check));

        std::optional<HostPeaks> peaks;
        if (on_host) peaks = measure_host_peaks(node_host_ranks, host_threads);
        const DgemmNominal nominal = nominal_for(ctx, placement, host_ranks, peaks, host_threads);
        const stats::Summary spread = stats::summarize(rates);
        result.add_metric(std::string(dgemm_names::tflops), spread.median, nominal.tflops);
        result.add_metric(std::string(dgemm_names::tflops_max), spread.max, nominal.tflops);
        result.add_metric(std::string(dgemm_names::tflops_min), spread.min, nominal.tflops);

        result.parameters[placement::names::device] = std::string(to_string(placement));
        result.parameters["backend"] = backend->name();
        result.parameters["n_used"] = std::to_string(n);
        result.parameters["fill"] = to_string(fill);
        result.parameters["repetitions_used"] = std::to_string(repetitions);
        result.parameters["nominal_source"] = nominal.source;
        result.parameters["nominal_detail"] = nominal.detail;
        result.parameters["checksum_worst_ratio"] = fmt::format("{:.3g}", check.worst_column_error);
        if (placement == placement::Placement::host) {
            add_core_peak(ctx, *peaks, host_threads, result);
            result.parameters["blas_library"] = inventory_text(ctx.inventory(), "blas", "library");
            result.parameters["openblas_core"] = inventory_text(ctx.inventory(), "blas", "openblas_core");
            result.parameters["openblas_core_in_use"] = gemm::BlasThreadShare::openblas_core().value_or("not OpenBLAS");
            result.parameters["blas_kernel_fit"] = blas_kernel_fit(ctx);
            result.parameters["blas_threads"] =
                blas_threads->threads() ? std::to_string(*blas_threads->threads()) : std::string("not OpenBLAS");
        }
        return result;
    }
};

SHAKEDOWN_REGISTER_TEST(DgemmFp64Test);

}  // namespace
}  // namespace shakedown::kernels
