// `burnin`: sustained FP64 DGEMM on the bound GPU (and the host cores when `host: true`) for
// a set duration, in windows. Each window reports its rate and the telemetry sampled at
// 10 Hz during it (clocks, temperature, power, throttle reasons, ECC), and validates its
// product: a wrong answer under load is a FAIL naming the window. Over the run: the drift
// from the first to the last window, clock median/minimum, hottest temperature, throttle
// time shares and ECC increments.
#include "health/burnin/burn_target.hpp"
#include "health/burnin/window_telemetry.hpp"
#include "health/specs.hpp"
#include "placement/gpu_binding.hpp"

#include "core/errors.hpp"
#include "core/registry.hpp"
#include "core/run_context.hpp"
#include "stats/summary.hpp"
#include "hardware/cpu_nominal.hpp"
#include "hardware/gpu_specs.hpp"
#include "kokkos/kokkos_runtime.hpp"
#include "placement/placement.hpp"
#include "gemm/blas_threads.hpp"
#include "telemetry/gpu_telemetry.hpp"
#include "telemetry/host_telemetry.hpp"
#include "telemetry/sampler.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <future>
#include <thread>

namespace shakedown::health {
namespace {

// One device under load with its own telemetry.
struct Lane {
    std::string label;   // "gpu" or "host"
    std::string prefix;  // metric prefix: "burnin." or "burnin.host_"
    int code = 0;        // the samples' "target" column: 0 gpu, 1 host
    std::unique_ptr<BurnTarget> target;
    std::unique_ptr<TelemetrySampler> sampler;  // nothing without NVML for a GPU
    TelemetryRoles roles;
    std::optional<double> nominal_tflops;
    std::vector<WindowWork> work;
    std::vector<WindowTelemetry> telemetry;
};

std::unique_ptr<TelemetrySampler> gpu_sampler(const RunContext& ctx, int gpu, double hz, TestResult& result) {
    std::string why;
    auto nvml = Nvml::load(Nvml::default_library, &why);
    const auto index = placement::nvml_index_for(ctx.inventory(), gpu);
    std::optional<NvmlDevice> device = nvml && index ? nvml->device(*index) : std::nullopt;
    if (!device) {
        result.parameters["gpu_telemetry"] = nvml ? "inventory does not name this GPU's NVML index" : "no NVML: " + why;
        return nullptr;
    }
    std::vector<std::unique_ptr<TelemetrySource>> sources;
    sources.push_back(std::make_unique<GpuTelemetry>(nvml, *device));
    result.parameters["gpu_telemetry"] = fmt::format("NVML device {} at {} Hz", *index, hz);
    return std::make_unique<TelemetrySampler>(hz, std::move(sources));
}

std::unique_ptr<TelemetrySampler> host_sampler(double hz) {
    std::vector<std::unique_ptr<TelemetrySource>> sources;
    sources.push_back(std::make_unique<HostTelemetry>());
    return std::make_unique<TelemetrySampler>(hz, std::move(sources));
}

SampleTable drained(TelemetrySampler* sampler) {
    if (sampler == nullptr) return {};
    auto tables = sampler->drain();
    return tables.empty() ? SampleTable{} : std::move(tables.begin()->second);
}

// The host lane's threads: this rank's whole cores among the node's host-lane ranks.
int host_thread_share(const RunContext& ctx, int host_ranks) {
    return std::max(1, static_cast<int>(placement::cores_per_rank(ctx, host_ranks)));
}

void add_if_finite(TestResult& result, const std::string& name, double value, std::optional<double> nominal = std::nullopt) {
    if (std::isfinite(value)) result.add_metric(name, value, nominal);
}

class BurninTest final : public Test {
public:
    BurninTest() : Test(burnin_spec()) {}

    std::optional<std::string> waiver(const RunContext& ctx) const override {
        const bool host = ctx.params().flag("host");
        if (placement::usable_gpu(ctx)) return placement::gpu_only_waiver(ctx);  // a shared GPU: its owner runs both lanes
        if (!host) return std::string(placement::no_cuda_device);
        if (host && !placement::usable_gpu(ctx) && !kokkos::built())
            return std::string("built without Kokkos (host DGEMM needs KokkosKernels)");
        return std::nullopt;
    }

    TestResult run(const RunContext& ctx) const override {
        TestResult result;
        const double duration = ctx.params().real("duration_s");
        const double window_s = ctx.params().real("window_s");
        const int windows = std::max(1, static_cast<int>(std::lround(duration / window_s)));
        const double hz = ctx.params().real("telemetry_hz");
        result.parameters["duration_s_used"] = fmt::format("{:g}", windows * window_s);
        result.parameters["windows"] = std::to_string(windows);

        std::optional<gemm::BlasThreadShare> blas_threads;
        std::vector<Lane> lanes;
        if (const auto gpu = placement::usable_gpu(ctx)) {
            const auto n = static_cast<std::size_t>(ctx.params().integer("gpu_n"));
            Lane lane{"gpu", "burnin.", 0, std::make_unique<BurnTarget>(gemm::make_cuda_dgemm(n, *gpu), n),
                      gpu_sampler(ctx, *gpu, hz, result), gpu_telemetry_roles(), std::nullopt, {}, {}};
            lane.nominal_tflops = hardware::gpu_nominal(gpu::query_gpu_facts(*gpu)).tflops_for("fp64_tensor");
            lanes.push_back(std::move(lane));
        }
        if (ctx.params().flag("host")) {
            const int host_ranks = placement::ranks_sharing_this_node(ctx, true);  // the flag is the same on every rank
            blas_threads.emplace(host_thread_share(ctx, host_ranks));
            const auto n = static_cast<std::size_t>(ctx.params().integer("host_n"));
            Lane lane{"host", "burnin.host_", 1, std::make_unique<BurnTarget>(gemm::make_host_dgemm(n), n),
                      host_sampler(hz), host_telemetry_roles(), std::nullopt, {}, {}};
            const auto cpu = hardware::derive_cpu_nominal(ctx.inventory());
            if (cpu.node_gflops) lane.nominal_tflops = *cpu.node_gflops * 1e-3 / host_ranks;
            if (blas_threads->threads()) result.parameters["blas_threads"] = std::to_string(*blas_threads->threads());
            lanes.push_back(std::move(lane));
        }

        // Test-only: one element of one window's product goes wrong, as failing hardware would.
        const int corrupted_window = ctx.faults().corrupt() ? windows / 2 : -1;
        for (int w = 0; w < windows; ++w) {
            MPI_Barrier(ctx.comm());  // every device of the job under load at once: node power and heat
            for (auto& lane : lanes) (void)drained(lane.sampler.get());  // rows from before the window
            run_window(lanes, window_s, w == corrupted_window);
            for (auto& lane : lanes) lane.telemetry.push_back(summarize_window(drained(lane.sampler.get()), lane.roles));
        }

        result.samples = SampleTable(burnin_spec().samples);
        for (const auto& lane : lanes) report_lane(ctx, result, lane, windows);
        return result;
    }

private:
    static void run_window(std::vector<Lane>& lanes, double seconds, bool corrupt_first) {
        // The host lane runs on its own thread so that GPU and host are loaded together.
        std::vector<std::future<WindowWork>> others;
        for (std::size_t i = 1; i < lanes.size(); ++i)
            others.push_back(std::async(std::launch::async, [&lane = lanes[i], seconds] {
                return lane.target->run_window(seconds, false);
            }));
        lanes[0].work.push_back(lanes[0].target->run_window(seconds, corrupt_first));
        for (std::size_t i = 1; i < lanes.size(); ++i) lanes[i].work.push_back(others[i - 1].get());
    }

    static void report_lane(const RunContext& ctx, TestResult& result, const Lane& lane, int windows) {
        constexpr double nan = std::numeric_limits<double>::quiet_NaN();
        std::vector<double> rates, clocks, clock_minimums, temperatures, powers;
        std::vector<double> throttle_sum(4, 0.0);
        std::vector<int> throttle_count(4, 0);
        int wrong_windows = 0;
        for (int w = 0; w < windows; ++w) {
            const auto& work = lane.work[static_cast<std::size_t>(w)];
            const auto& tel = lane.telemetry[static_cast<std::size_t>(w)];
            if (!work.wrong_answer.empty()) {
                ++wrong_windows;
                result.fail(fmt::format("burnin: {} window {}/{} produced a wrong product: {}", lane.label, w + 1, windows,
                                        work.wrong_answer));
            }
            rates.push_back(work.tflops());
            if (std::isfinite(tel.clock_median_mhz)) clocks.push_back(tel.clock_median_mhz);
            if (std::isfinite(tel.clock_min_mhz)) clock_minimums.push_back(tel.clock_min_mhz);
            if (std::isfinite(tel.temperature_max_c)) temperatures.push_back(tel.temperature_max_c);
            if (std::isfinite(tel.power_median_w)) powers.push_back(tel.power_median_w);
            auto share = [&](std::size_t i) { return i < tel.throttle_share.size() ? tel.throttle_share[i] : nan; };
            auto ecc = [&](std::size_t i) { return i < tel.ecc_increment.size() ? tel.ecc_increment[i] : nan; };
            for (std::size_t i = 0; i < 4; ++i)
                if (std::isfinite(share(i))) {
                    throttle_sum[i] += share(i) * static_cast<double>(tel.samples);
                    throttle_count[i] += static_cast<int>(tel.samples);
                }
            result.samples.add_row({static_cast<double>(lane.code), static_cast<double>(w), work.wall_seconds,
                                    static_cast<double>(work.gemms), work.tflops(), work.wrong_answer.empty() ? 1.0 : 0.0,
                                    tel.clock_median_mhz, tel.clock_min_mhz, tel.temperature_max_c, tel.power_median_w,
                                    share(0), share(1), share(2), share(3), ecc(0), ecc(1),
                                    static_cast<double>(tel.samples)});
        }

        const std::string& p = lane.prefix;
        result.parameters[lane.label + "_backend"] = lane.target->backend_name();
        result.parameters[lane.label + "_n"] = std::to_string(lane.target->n());
        add_if_finite(result, p + "tflops", stats::median(rates), lane.nominal_tflops);
        add_if_finite(result, p + "tflops_first_window", rates.front(), lane.nominal_tflops);
        add_if_finite(result, p + "tflops_last_window", rates.back(), lane.nominal_tflops);
        if (rates.front() > 0.0)
            result.add_metric(p + "drift_pct", (rates.back() - rates.front()) / rates.front() * 100.0);
        result.add_metric(p + "wrong_windows_count", wrong_windows);
        add_if_finite(result, p + "clock_median_mhz", stats::median(clocks));
        if (!clock_minimums.empty())
            result.add_metric(p + "clock_min_mhz", *std::min_element(clock_minimums.begin(), clock_minimums.end()));
        if (!temperatures.empty()) {
            const double hottest = *std::max_element(temperatures.begin(), temperatures.end());
            result.add_metric(p + "max_temperature_c", hottest);
            if (hottest > ctx.params().real("max_temp_c"))
                result.parameters[lane.label + "_temperature_warning"] =
                    fmt::format("{:.0f} C above {:.0f} C", hottest, ctx.params().real("max_temp_c"));
        }
        add_if_finite(result, p + "power_median_w", stats::median(powers));
        const char* throttle_names[4] = {"power_capped_share", "thermal_share", "hw_slowdown_share", "hw_power_brake_share"};
        for (std::size_t i = 0; i < 4; ++i)
            if (throttle_count[i] > 0)
                result.add_metric(p + throttle_names[i], throttle_sum[i] / throttle_count[i]);
        report_ecc(result, lane);
    }

    // Volatile ECC totals from the first reading of the first window to the last of the last.
    static void report_ecc(TestResult& result, const Lane& lane) {
        const char* names[2] = {"ecc_corrected_increment", "ecc_uncorrected_increment"};
        for (std::size_t i = 0; i < 2; ++i) {
            double first = std::numeric_limits<double>::quiet_NaN(), last = first;
            for (const auto& tel : lane.telemetry)
                if (i < tel.ecc_first.size() && std::isfinite(tel.ecc_first[i])) {
                    if (!std::isfinite(first)) first = tel.ecc_first[i];
                    last = tel.ecc_last[i];
                }
            if (!std::isfinite(first)) continue;
            result.add_metric(lane.prefix + names[i], last - first);
            if (i == 1 && last > first)
                result.fail(fmt::format("burnin: {} uncorrected ECC errors rose by {:.0f} under load", lane.label, last - first));
        }
    }
};

SHAKEDOWN_REGISTER_TEST(BurninTest);

}  // namespace
}  // namespace shakedown::health
