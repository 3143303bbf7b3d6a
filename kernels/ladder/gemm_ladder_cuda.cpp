// One rung of the GEMM ladder on a CUDA GPU. The candidates of fp32..fp16 are cublasGemmEx TN
// (the call the reference figures were measured with, and what the ladder ran before it was
// tuned) and cuBLASLt's top heuristic algorithms for TN and NN; fp8 needs cuBLASLt (TN), tried
// set-up by set-up (kernels/ladder/fp8_setups.hpp says why). The autotune (ladder_autotune.hpp)
// picks the fastest; the timed repetitions use it. fp64 runs cublasGemmEx NN alone (gemm_candidates says why).
// A is stored as n x n values a[index] once, and read as op(A): TN reads A(i, p) = a[p + i n]
// (each entry of C a dot product of two contiguous columns), NN reads A(i, p) = a[i + p n];
// the host reference reads the layout that ran.
// The emulated rungs (fp64_emulated: fixed-point on the integer tensor cores; fp32_emulated:
// BF16x9) run cublasGemmEx alone on a handle set to CUBLAS_EMULATION_STRATEGY_EAGER (PERFORMANT,
// the default, picks native FP64 on an H200), then the native rung's cublasGemmEx of the same
// inputs on a second handle; max |C_emul - C_native| / max |C_native| is taken over the whole
// matrix on the GPU (cublasI?amax_64, cublas?axpy_64). A rung the library cannot emulate is not
// measured: a cuBLAS older than the API (build or run time), a refused strategy or launch, the
// retained-bit count -1 or unwritten (fp64: cuBLAS ran natively), a result bit-identical to
// native (fp32: BF16x9 has no count; cuBLAS 13.1 on an H200 runs it as native fp32).
#include "kernels/ladder/ladder_backend.hpp"

#include "gemm/matrix_fill.hpp"
#include "gpu/cublas_handles.hpp"
#include "kernels/ladder/cublaslt_plan.hpp"
#include "gpu/cuda_owners.hpp"
#include "kernels/ladder/fp8_setups.hpp"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <array>
#include <chrono>
#include <cmath>
#include <cstring>
#include <functional>
#include <memory>
#include <thread>
#include <type_traits>

namespace shakedown::kernels {
namespace {

constexpr std::uint64_t seed_a = 101;
constexpr std::uint64_t seed_b = 202;

// The cuBLAS releases with each emulation API: fixed-point FP64 (cublasSetFixedPointEmulation*,
// COMPUTE_64F_EMULATED_FIXEDPOINT) and BF16x9 with the emulation strategy.
constexpr int fixedpoint_cublas_version = 130100;
constexpr int bf16x9_cublas_version = 120900;
#if defined(CUBLAS_VERSION) && CUBLAS_VERSION >= 130100
#define SHAKEDOWN_LADDER_FIXEDPOINT 1
#endif
#if defined(CUBLAS_VERSION) && CUBLAS_VERSION >= 120900
#define SHAKEDOWN_LADDER_BF16X9 1
#endif

std::string cublas_version_text(int version) {
    return fmt::format("{}.{}.{}", version / 10000, version / 100 % 100, version % 100);
}

// How one rung stores its numbers and asks cuBLAS to multiply them.
struct RungTypes {
    cudaDataType input;
    cudaDataType output;
    cublasComputeType_t compute;
    bool double_scalars;  // alpha/beta as double (64F compute) or float
    std::size_t input_bytes;
    std::size_t output_bytes;
    // Rounds a value to the input type: writes its bytes, returns the value it now has.
    double (*store_input)(double value, void* bytes);
    double (*load_output)(const void* bytes);
    void (*store_output)(double value, void* bytes);
};

template <typename T>
T from_bytes(const void* bytes) {
    T value;
    std::memcpy(&value, bytes, sizeof value);
    return value;
}

double store_fp64(double v, void* p) { std::memcpy(p, &v, sizeof v); return v; }
double load_fp64(const void* p) { return from_bytes<double>(p); }
void put_fp64(double v, void* p) { std::memcpy(p, &v, sizeof v); }
double store_fp32(double v, void* p) { const float f = static_cast<float>(v); std::memcpy(p, &f, sizeof f); return f; }
double load_fp32(const void* p) { return from_bytes<float>(p); }
void put_fp32(double v, void* p) { const float f = static_cast<float>(v); std::memcpy(p, &f, sizeof f); }
double store_bf16(double v, void* p) {
    const __nv_bfloat16 h = __float2bfloat16(static_cast<float>(v));
    std::memcpy(p, &h, sizeof h);
    return __bfloat162float(h);
}
double load_bf16(const void* p) { return __bfloat162float(from_bytes<__nv_bfloat16>(p)); }
void put_bf16(double v, void* p) { store_bf16(v, p); }
double store_fp16(double v, void* p) {
    const __half h = __float2half(static_cast<float>(v));
    std::memcpy(p, &h, sizeof h);
    return __half2float(h);
}
double load_fp16(const void* p) { return __half2float(from_bytes<__half>(p)); }
void put_fp16(double v, void* p) { store_fp16(v, p); }
double store_fp8(double v, void* p) {
    const __nv_fp8_e4m3 q(static_cast<float>(v));
    std::memcpy(p, &q, sizeof q);
    return static_cast<float>(q);
}

RungTypes types_of(LadderPrecision precision) {
    switch (precision) {
    case LadderPrecision::fp64: return {CUDA_R_64F, CUDA_R_64F, CUBLAS_COMPUTE_64F, true, 8, 8, store_fp64, load_fp64, put_fp64};
    case LadderPrecision::fp32:
        return {CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F_PEDANTIC, false, 4, 4, store_fp32, load_fp32, put_fp32};
    case LadderPrecision::tf32:
        return {CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32, false, 4, 4, store_fp32, load_fp32, put_fp32};
    case LadderPrecision::bf16: return {CUDA_R_16BF, CUDA_R_16BF, CUBLAS_COMPUTE_32F, false, 2, 2, store_bf16, load_bf16, put_bf16};
    case LadderPrecision::fp16: return {CUDA_R_16F, CUDA_R_16F, CUBLAS_COMPUTE_32F, false, 2, 2, store_fp16, load_fp16, put_fp16};
    case LadderPrecision::fp8:
        return {CUDA_R_8F_E4M3, CUDA_R_16BF, CUBLAS_COMPUTE_32F, false, 1, 2, store_fp8, load_bf16, put_bf16};
    case LadderPrecision::fp64_emulated:
#ifdef SHAKEDOWN_LADDER_FIXEDPOINT
        return {CUDA_R_64F, CUDA_R_64F, CUBLAS_COMPUTE_64F_EMULATED_FIXEDPOINT, true, 8, 8, store_fp64, load_fp64, put_fp64};
#else
        throw RungNotSupported(fmt::format("built with cuBLAS {}: fixed-point FP64 emulation needs {} or later",
                                           cublas_version_text(CUBLAS_VERSION), cublas_version_text(fixedpoint_cublas_version)));
#endif
    case LadderPrecision::fp32_emulated:
#ifdef SHAKEDOWN_LADDER_BF16X9
        return {CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F_EMULATED_16BFX9, false, 4, 4, store_fp32, load_fp32, put_fp32};
#else
        throw RungNotSupported(fmt::format("built with cuBLAS {}: BF16x9 emulation needs {} or later",
                                           cublas_version_text(CUBLAS_VERSION), cublas_version_text(bf16x9_cublas_version)));
#endif
    }
    throw std::logic_error("unknown ladder precision");
}

// k x cols "k-major" input: device bytes plus the values as the GPU sees them, in FP64.
struct Input {
    std::vector<std::byte> bytes;
    std::vector<double> values;
};
Input make_input(std::uint64_t seed, std::size_t k, std::size_t cols, const RungTypes& types) {
    Input input{std::vector<std::byte>(k * cols * types.input_bytes), std::vector<double>(k * cols)};
    for (std::size_t index = 0; index < input.values.size(); ++index)
        input.values[index] = types.store_input(gemm::random_entry(seed, index), input.bytes.data() + index * types.input_bytes);
    return input;
}

// One way to multiply: a label for the trace, the layout it reads A in, and its launch.
struct Candidate {
    std::string label;
    bool transpose_a = true;
    std::size_t fp8_setup = 0;
    std::function<cublasStatus_t()> launch;
};

// Everything the candidates of one rung point at; outlives them.
struct RungDevice {
    RungDevice(std::size_t n, std::size_t input_bytes, std::size_t output_bytes)
        : a(n * n * input_bytes), b(n * n * input_bytes), c(n * n * output_bytes), workspace(fp8_max_workspace_bytes),
          scale_a(1), scale_b(1) {
        SHAKEDOWN_CUBLAS(cublasSetStream(blas.get(), stream.get()));
        // Separate allocations: cudaMalloc aligns each to 256 bytes (fp8_setups.hpp: the one
        // shared allocation with B's scale 4 bytes in was refused).
        SHAKEDOWN_CUDA(cudaMemcpy(scale_a.get(), &fp8_scale_a, sizeof(float), cudaMemcpyHostToDevice));
        SHAKEDOWN_CUDA(cudaMemcpy(scale_b.get(), &fp8_scale_b, sizeof(float), cudaMemcpyHostToDevice));
    }
    gpu::DeviceBuffer<std::byte> a, b, c, workspace;
    gpu::DeviceBuffer<float> scale_a, scale_b;
    gpu::CudaStream stream;
    gpu::CublasHandle blas;
    gpu::CublasLtHandle lt;
    std::vector<std::unique_ptr<LtPlan>> plans;  // the cuBLASLt candidates' descriptors
};

const char* layout_name(bool transpose_a) { return transpose_a ? "TN" : "NN"; }

// A cuBLASLt candidate per algorithm the heuristic offers for `plan` (up to `wanted`).
void add_lt_candidates(RungDevice& device, std::unique_ptr<LtPlan> plan, const RungTypes& types, bool transpose_a, int wanted,
                       std::vector<Candidate>& out, std::size_t fp8_setup, cublasStatus_t& heuristic) {
    const auto offered = heuristic_algorithms(device.lt.get(), *plan, wanted, heuristic);
    const LtPlan* owned = plan.get();
    device.plans.push_back(std::move(plan));
    for (std::size_t choice = 0; choice < offered.size(); ++choice) {
        const cublasLtMatmulAlgo_t algo = offered[choice].algo;
        Candidate candidate;
        candidate.label = fmt::format("cuBLASLt {} heuristic {} of {}: {}", layout_name(transpose_a), choice, offered.size(),
                                      describe_algorithm(algo));
        candidate.transpose_a = transpose_a;
        candidate.fp8_setup = fp8_setup;
        candidate.launch = [&device, owned, algo, double_scalars = types.double_scalars] {
            const double alpha64 = 1.0, beta64 = 0.0;
            const float alpha32 = 1.0f, beta32 = 0.0f;
            const void* alpha = double_scalars ? static_cast<const void*>(&alpha64) : &alpha32;
            const void* beta = double_scalars ? static_cast<const void*>(&beta64) : &beta32;
            void* d = device.c.get();
            return cublasLtMatmul(device.lt.get(), owned->desc.get(), alpha, device.a.get(), owned->a.get(), device.b.get(),
                                  owned->b.get(), beta, owned->c_is_d ? d : nullptr, owned->c.get(), d, owned->d.get(), &algo,
                                  device.workspace.get(), owned->workspace_bytes, device.stream.get());
        };
        out.push_back(std::move(candidate));
    }
}

// Launches each candidate once (its warm-up, timed): those the library refuses are dropped
// and reported through `refused(candidate index, status)`; any other failure throws.
template <typename Refused>
std::vector<double> warm_up_dropping_refusals(std::vector<Candidate>& candidates, cudaStream_t stream, bool first_only,
                                              Refused&& refused) {
    std::vector<Candidate> running;
    std::vector<double> seconds;
    gpu::EventTimer timer(stream);
    for (std::size_t index = 0; index < candidates.size(); ++index) {
        timer.start();
        const cublasStatus_t status = candidates[index].launch();
        const double elapsed = timer.stop_seconds();
        if (status != CUBLAS_STATUS_SUCCESS) {
            if (!is_refusal(status)) gpu::check_cublas(status, candidates[index].label.c_str(), __FILE__, __LINE__);
            refused(index, status);
            continue;
        }
        running.push_back(std::move(candidates[index]));
        seconds.push_back(elapsed);
        if (first_only) break;
    }
    candidates = std::move(running);
    return seconds;
}

// fp32..fp16: cublasGemmEx TN first, then cuBLASLt's algorithms for TN and NN. fp64: cublasGemmEx
// NN alone. On the H200 a DGEMM reaches the 700 W cap within a second, so the
// round-robin ranks fp64 candidates while they are power-capped, and its pick (a smaller tile)
// ran the cool timed burst at 51.4 TFLOP/s where NN's default gives 56-57; NN's default was also
// the best of cuBLASLt's top 8 timed cool (bench/gpu/gemm_probe.cu, part algos).
// The emulated rungs: cublasGemmEx alone in their native rung's layout (cuBLASLt would need
// its own emulation descriptor, and the emulated rate is the library's default path).
std::vector<Candidate> gemm_candidates(LadderPrecision precision, RungDevice& device, const RungTypes& types, std::size_t n,
                                       const AutotuneLimits& limits, std::vector<std::string>& lt_refusals) {
    std::vector<Candidate> candidates;
    const int dim = static_cast<int>(n);
    const bool fp64 = rung(precision).native == LadderPrecision::fp64;  // fp64, fp64_emulated: NN
    const bool alone = fp64 || is_emulated(precision);
    Candidate gemm_ex;
    gemm_ex.transpose_a = !fp64;
    gemm_ex.label = fmt::format("cublasGemmEx {}, CUBLAS_GEMM_DEFAULT{}", fp64 ? "NN" : "TN",
                                is_emulated(precision) ? " (emulated: not autotuned)"
                                : fp64                 ? " (fp64: not autotuned)"
                                                       : "");
    const cublasOperation_t op_a = fp64 ? CUBLAS_OP_N : CUBLAS_OP_T;
    gemm_ex.launch = [&device, types, dim, op_a] {
        const double alpha64 = 1.0, beta64 = 0.0;
        const float alpha32 = 1.0f, beta32 = 0.0f;
        const void* alpha = types.double_scalars ? static_cast<const void*>(&alpha64) : &alpha32;
        const void* beta = types.double_scalars ? static_cast<const void*>(&beta64) : &beta32;
        return cublasGemmEx(device.blas.get(), op_a, CUBLAS_OP_N, dim, dim, dim, alpha, device.a.get(), types.input, dim,
                            device.b.get(), types.input, dim, beta, device.c.get(), types.output, dim, types.compute,
                            CUBLAS_GEMM_DEFAULT);
    };
    candidates.push_back(std::move(gemm_ex));
    if (limits.candidates <= 0 || alone) return candidates;
    for (const bool transpose_a : {true, false}) {
        LtPlanSpec spec;
        spec.n = n;
        spec.input = types.input;
        spec.output = types.output;
        spec.compute = types.compute;
        spec.scale_type = types.double_scalars ? CUDA_R_64F : CUDA_R_32F;
        spec.transpose_a = transpose_a;
        spec.workspace_bytes = fp8_max_workspace_bytes;
        cublasStatus_t status = CUBLAS_STATUS_SUCCESS;
        auto plan = make_lt_plan(spec, status);
        if (!plan) {
            lt_refusals.push_back(fmt::format("{} plan: {}", layout_name(transpose_a), cublasGetStatusName(status)));
            continue;
        }
        add_lt_candidates(device, std::move(plan), types, transpose_a, limits.candidates, candidates, 0, status);
        if (status != CUBLAS_STATUS_SUCCESS)
            lt_refusals.push_back(fmt::format("{} heuristic: {}", layout_name(transpose_a), cublasGetStatusName(status)));
    }
    return candidates;
}

// fp8: the first set-up of fp8_setups with an algorithm that runs; its running algorithms are
// the candidates (already warmed up: `warmup_s`). Throws RungNotSupported naming every refusal.
std::vector<Candidate> fp8_candidates(RungDevice& device, const RungTypes& types, std::size_t n, const LadderRunOptions& options,
                                      std::vector<double>& warmup_s, std::string& refused_before) {
    std::vector<Fp8Attempt> attempts;
    for (std::size_t index = 0; index < fp8_setups.size(); ++index) {
        const Fp8Setup& setup = fp8_setups[index];
        LtPlanSpec spec;
        spec.n = n;
        spec.input = CUDA_R_8F_E4M3;
        spec.output = setup.output == Fp8Output::bf16 ? CUDA_R_16BF : CUDA_R_32F;
        spec.compute = CUBLAS_COMPUTE_32F;
        spec.scale_type = CUDA_R_32F;
        spec.transpose_a = true;  // Hopper's FP8 kernels take TN only
        spec.workspace_bytes = setup.workspace_bytes;
        spec.a_scale = setup.scaled ? device.scale_a.get() : nullptr;
        spec.b_scale = setup.scaled ? device.scale_b.get() : nullptr;
        spec.fast_accumulation = options.fp8_fast_accumulation ? 1 : 0;
        spec.c_is_d = setup.c_is_d;
        cublasStatus_t status = CUBLAS_STATUS_SUCCESS;
        auto plan = make_lt_plan(spec, status);
        if (!plan) {
            attempts.push_back({index, -1, "", cublasGetStatusName(status)});
            continue;
        }
        std::vector<Candidate> candidates;
        add_lt_candidates(device, std::move(plan), types, true, 16, candidates, index, status);
        if (status != CUBLAS_STATUS_SUCCESS || candidates.empty()) {
            if (status != CUBLAS_STATUS_SUCCESS && !is_refusal(status)) gpu::check_cublas(status, "cublasLtMatmulAlgoGetHeuristic(fp8)", __FILE__, __LINE__);
            attempts.push_back({index, -1, "", status != CUBLAS_STATUS_SUCCESS ? cublasGetStatusName(status) : "no algorithm offered"});
            continue;
        }
        std::vector<std::string> labels;
        for (const Candidate& candidate : candidates) labels.push_back(candidate.label);
        warmup_s = warm_up_dropping_refusals(candidates, device.stream.get(), options.autotune.candidates <= 0,
                                             [&](std::size_t choice, cublasStatus_t refusal) {
                                                 attempts.push_back({index, static_cast<int>(choice), labels[choice],
                                                                     cublasGetStatusName(refusal)});
                                             });
        if (!candidates.empty()) {
            refused_before = summarize_fp8_refusals(attempts);
            if (static_cast<int>(candidates.size()) > std::max(1, options.autotune.candidates)) {  // the top k that run
                candidates.resize(static_cast<std::size_t>(std::max(1, options.autotune.candidates)));
                warmup_s.resize(candidates.size());
            }
            return candidates;
        }
    }
    throw RungNotSupported("cuBLASLt ran no fp8 e4m3 GEMM (TN, compute 32F): " + summarize_fp8_refusals(attempts));
}

struct TunedChoice {
    std::size_t index = 0;
    std::vector<std::pair<std::string, std::string>> details;
};

// Times the candidates round-robin (those that fit the budget) and picks the fastest.
TunedChoice autotune(std::vector<Candidate>& candidates, const std::vector<double>& warmup_s, const AutotuneLimits& limits,
                     cudaStream_t stream) {
    TunedChoice tuned;
    if (candidates.size() == 1) {
        tuned.details = {{"autotune", "off or one candidate: no tuning"}, {"first_over_best", "1.000"}};
        return tuned;
    }
    const auto started = std::chrono::steady_clock::now();
    const std::size_t kept = candidates_within_budget(warmup_s, limits.rounds, limits.budget_s);
    std::vector<CandidateTimes> times(kept);
    gpu::EventTimer timer(stream);
    for (int round = 0; round < limits.rounds; ++round)
        for (std::size_t index = 0; index < kept; ++index) {
            timer.start();
            gpu::check_cublas(candidates[index].launch(), candidates[index].label.c_str(), __FILE__, __LINE__);
            times[index].rounds_s.push_back(timer.stop_seconds());
        }
    const AutotuneChoice choice = choose_fastest(times);
    tuned.index = choice.best;
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    tuned.details = {
        {"autotune", fmt::format("candidate {} fastest of {} (median of {} round-robin rounds, {:.2f} s){}; candidate 0: {}",
                                 choice.best, kept, limits.rounds, seconds,
                                 kept < candidates.size() ? fmt::format(", {} more left out by the {} s budget",
                                                                        candidates.size() - kept, limits.budget_s)
                                                          : std::string(),
                                 candidates.front().label)},
        {"autotune_index", std::to_string(choice.best)},
        {"first_over_best", fmt::format("{:.3f}", choice.first_over_best)},
    };
    return tuned;
}

// Sampled (row, column) positions: the corners and hashed positions in between.
std::vector<std::pair<std::size_t, std::size_t>> sample_positions(std::size_t n, std::size_t count) {
    std::vector<std::pair<std::size_t, std::size_t>> positions = {{0, 0}, {n - 1, n - 1}};
    for (std::uint64_t s = 0; positions.size() < std::max<std::size_t>(count, 2); ++s)
        positions.emplace_back(mix64(2 * s) % n, mix64(2 * s + 1) % n);
    return positions;
}

// The rung's candidates, warmed up once (refusals dropped): fp8's running set-ups (its output
// type then known: `types` follows it), else cublasGemmEx and cuBLASLt's algorithms.
std::vector<Candidate> warmed_candidates(LadderPrecision precision, RungDevice& device, RungTypes& types, std::size_t n,
                                         const LadderRunOptions& options, std::vector<double>& warmup_s,
                                         LadderRunResult& result) {
    std::vector<Candidate> candidates;
    if (precision == LadderPrecision::fp8) {
        std::string refused_before;
        candidates = fp8_candidates(device, types, n, options, warmup_s, refused_before);
        const Fp8Setup& setup = fp8_setups[candidates.front().fp8_setup];
        if (setup.output == Fp8Output::fp32) {
            types.output = CUDA_R_32F;
            types.output_bytes = 4;
            types.load_output = load_fp32;
            types.store_output = put_fp32;
        }
        result.details.emplace_back("setup", std::string(setup.name));
        result.details.emplace_back("fast_accumulation", options.fp8_fast_accumulation ? "on" : "off (FP32 promotion)");
        if (!refused_before.empty()) result.details.emplace_back("refused_before", refused_before);
        return candidates;
    }
    std::vector<std::string> lt_refusals;
    candidates = gemm_candidates(precision, device, types, n, options.autotune, lt_refusals);
    std::vector<std::string> labels;
    for (const Candidate& candidate : candidates) labels.push_back(candidate.label);
    warmup_s = warm_up_dropping_refusals(candidates, device.stream.get(), false, [&](std::size_t index, cublasStatus_t status) {
        lt_refusals.push_back(fmt::format("{}: {}", labels[index], cublasGetStatusName(status)));
    });
    if (candidates.empty())
        throw RungNotSupported("neither cublasGemmEx nor cuBLASLt ran it: " + fmt::format("{}", fmt::join(lt_refusals, "; ")));
    if (!lt_refusals.empty()) result.details.emplace_back("refused", fmt::format("{}", fmt::join(lt_refusals, "; ")));
    return candidates;
}

// After a cool-down (so tuning does not change what is measured) and the warm-up, each timed
// repetition between its own events.
std::vector<double> time_repetitions(const Candidate& chosen, RungDevice& device, const LadderRunOptions& options) {
    device.stream.synchronize();
    if (options.cooldown_s > 0.0) std::this_thread::sleep_for(std::chrono::duration<double>(options.cooldown_s));
    const auto multiply = [&] { gpu::check_cublas(chosen.launch(), chosen.label.c_str(), __FILE__, __LINE__); };
    for (std::int64_t rep = 0; rep < options.warmup; ++rep) multiply();
    device.stream.synchronize();
    gpu::EventTimer timer(device.stream.get());
    std::vector<double> seconds;
    for (std::int64_t rep = 0; rep < options.repetitions; ++rep) {
        timer.start();
        multiply();
        seconds.push_back(timer.stop_seconds());
    }
    return seconds;
}

// Planted: the entry at `position` goes wrong on the device.
void corrupt_entry(RungDevice& device, const RungTypes& types, std::size_t n, std::pair<std::size_t, std::size_t> position) {
    const auto [i, j] = position;
    std::vector<std::byte> element(types.output_bytes);
    std::byte* where = device.c.get() + (i + j * n) * types.output_bytes;
    SHAKEDOWN_CUDA(cudaMemcpy(element.data(), where, element.size(), cudaMemcpyDeviceToHost));
    types.store_output(-2.0 * types.load_output(element.data()) - 1.0, element.data());
    SHAKEDOWN_CUDA(cudaMemcpy(where, element.data(), element.size(), cudaMemcpyHostToDevice));
}

// The sampled entries of C against the product the GPU was asked for (op(A) B in the layout
// that ran, times fp8's scales), each a Neumaier-compensated FP64 dot product; sets
// result.worst_error and result.failure.
void validate_samples(const std::vector<std::byte>& c, const Input& a, const Input& b, const RungTypes& types, std::size_t n,
                      const Candidate& chosen, double factor, double tolerance,
                      const std::vector<std::pair<std::size_t, std::size_t>>& positions, LadderRunResult& result) {
    std::size_t wrong = 0;
    for (const auto& [i, j] : positions) {
        double sum = 0.0, compensation = 0.0, magnitude = 0.0;
        for (std::size_t p = 0; p < n; ++p) {
            const double a_ip = chosen.transpose_a ? a.values[p + i * n] : a.values[i + p * n];
            const double term = a_ip * b.values[p + j * n];
            const double t = sum + term;
            compensation += std::abs(sum) >= std::abs(term) ? (sum - t) + term : (term - t) + sum;
            sum = t;
            magnitude += std::abs(term);
        }
        const double expected = factor * (sum + compensation);
        const double value = types.load_output(c.data() + (i + j * n) * types.output_bytes);
        const double error = std::abs(value - expected) / (factor * magnitude);
        result.worst_error = std::max(result.worst_error, std::isnan(error) ? INFINITY : error / tolerance);
        if (!(error <= tolerance)) {
            if (wrong < 5)
                result.failure += fmt::format("C({}, {}) = {:.9g} (expected {:.9g}, error {:.3g} of sum|ab| > tolerance {:.3g}); ",
                                              i, j, value, expected, error, tolerance);
            ++wrong;
        }
    }
    if (wrong > 0) result.failure += fmt::format("{} of {} sampled entries wrong", wrong, positions.size());
}


// An emulation set-up answer that means "this library or GPU cannot emulate" (not a broken GPU).
void refuse_unless(cublasStatus_t status, const char* call) {
    if (status == CUBLAS_STATUS_SUCCESS) return;
    if (is_refusal(status)) throw RungNotSupported(fmt::format("{} answered {}", call, cublasGetStatusName(status)));
    gpu::check_cublas(status, call, __FILE__, __LINE__);
}

// The emulated rung's handle: the run-time cuBLAS checked, strategy EAGER, fp64's mantissa
// control (fixed count, or cuBLAS' dynamic default) and the device int cuBLAS writes the
// retained bit count into (-1: it did not emulate). What is in effect goes to the details.
void configure_emulation(LadderPrecision precision, RungDevice& device, const LadderRunOptions& options, int* retained_bits,
                         LadderRunResult& result) {
    cublasHandle_t blas = device.blas.get();
    int version = 0;
    SHAKEDOWN_CUBLAS(cublasGetVersion(blas, &version));
    const int needed = precision == LadderPrecision::fp64_emulated ? fixedpoint_cublas_version : bf16x9_cublas_version;
    result.details.emplace_back("cublas_version", cublas_version_text(version));
    if (version < needed)
        throw RungNotSupported(fmt::format("cuBLAS {} at run time: {} emulation needs {} or later", cublas_version_text(version),
                                           precision == LadderPrecision::fp64_emulated ? "fixed-point FP64" : "BF16x9",
                                           cublas_version_text(needed)));
#ifdef SHAKEDOWN_LADDER_BF16X9
    refuse_unless(cublasSetEmulationStrategy(blas, CUBLAS_EMULATION_STRATEGY_EAGER),
                  "cublasSetEmulationStrategy(CUBLAS_EMULATION_STRATEGY_EAGER)");
    result.details.emplace_back("emulation_strategy", "CUBLAS_EMULATION_STRATEGY_EAGER");
#endif
#ifdef SHAKEDOWN_LADDER_FIXEDPOINT
    if (precision != LadderPrecision::fp64_emulated) return;
    if (const auto bits = options.fp64_emulation_mantissa_bits) {
        refuse_unless(cublasSetFixedPointEmulationMantissaControl(blas, CUDA_EMULATION_MANTISSA_CONTROL_FIXED),
                      "cublasSetFixedPointEmulationMantissaControl(CUDA_EMULATION_MANTISSA_CONTROL_FIXED)");
        refuse_unless(cublasSetFixedPointEmulationMaxMantissaBitCount(blas, *bits), "cublasSetFixedPointEmulationMaxMantissaBitCount");
    }
    cudaEmulationMantissaControl control = CUDA_EMULATION_MANTISSA_CONTROL_DYNAMIC;
    int max_bits = 0;
    SHAKEDOWN_CUBLAS(cublasGetFixedPointEmulationMantissaControl(blas, &control));
    SHAKEDOWN_CUBLAS(cublasGetFixedPointEmulationMaxMantissaBitCount(blas, &max_bits));
    result.details.emplace_back(
        "mantissa_control",
        fmt::format("{}, max mantissa bits {}{}",
                    control == CUDA_EMULATION_MANTISSA_CONTROL_FIXED ? "fixed" : "dynamic (cuBLAS default)", max_bits,
                    max_bits == 0 ? " (the library's choice)" : ""));
    refuse_unless(cublasSetFixedPointEmulationMantissaBitCountPointer(blas, retained_bits),
                  "cublasSetFixedPointEmulationMantissaBitCountPointer");
#else
    (void)options;
    (void)retained_bits;
#endif
}

struct NativeComparison {
    double max_abs_difference = 0.0;  // max |C_emul - C_native| over all n^2 entries
    double max_abs_native = 0.0;      // max |C_native|
};

// The largest |x| of `count` values on the device (cublasI?amax_64: 1-based index, host result).
template <typename T>
double device_max_abs(cublasHandle_t blas, const T* values, std::int64_t count, cudaStream_t stream) {
    std::int64_t index = 0;
    if constexpr (std::is_same_v<T, double>)
        SHAKEDOWN_CUBLAS(cublasIdamax_64(blas, count, values, 1, &index));
    else
        SHAKEDOWN_CUBLAS(cublasIsamax_64(blas, count, values, 1, &index));
    SHAKEDOWN_CUDA(cudaStreamSynchronize(stream));
    if (index < 1 || index > count) return std::nan("");
    T value{};
    SHAKEDOWN_CUDA(cudaMemcpy(&value, values + (index - 1), sizeof value, cudaMemcpyDeviceToHost));
    return std::abs(static_cast<double>(value));
}

// The native rung's product of the same device inputs, in the layout that ran, on a handle of
// its own (default strategy), then max |C_native| and max |C_native - C_emul| on the GPU.
template <typename T>
NativeComparison compare_with_native(RungDevice& device, LadderPrecision native_precision, std::size_t n, bool transpose_a,
                                     LadderRunResult& result) {
    const RungTypes native = types_of(native_precision);
    gpu::CublasHandle blas;
    SHAKEDOWN_CUBLAS(cublasSetStream(blas.get(), device.stream.get()));
    gpu::DeviceBuffer<T> reference(n * n);
    const int dim = static_cast<int>(n);
    const T one = 1, zero = 0, minus_one = -1;
    SHAKEDOWN_CUBLAS(cublasGemmEx(blas.get(), transpose_a ? CUBLAS_OP_T : CUBLAS_OP_N, CUBLAS_OP_N, dim, dim, dim, &one,
                                  device.a.get(), native.input, dim, device.b.get(), native.input, dim, &zero, reference.get(),
                                  native.output, dim, native.compute, CUBLAS_GEMM_DEFAULT));
    const auto count = static_cast<std::int64_t>(n) * static_cast<std::int64_t>(n);
    const T* emulated = reinterpret_cast<const T*>(device.c.get());
    NativeComparison comparison;
    comparison.max_abs_native = device_max_abs(blas.get(), reference.get(), count, device.stream.get());
    if constexpr (std::is_same_v<T, double>)
        SHAKEDOWN_CUBLAS(cublasDaxpy_64(blas.get(), count, &minus_one, emulated, 1, reference.get(), 1));
    else
        SHAKEDOWN_CUBLAS(cublasSaxpy_64(blas.get(), count, &minus_one, emulated, 1, reference.get(), 1));
    comparison.max_abs_difference = device_max_abs(blas.get(), reference.get(), count, device.stream.get());
    result.details.emplace_back("native_reference",
                                fmt::format("cublasGemmEx {}, {} on its own handle, same inputs; whole matrix on the GPU",
                                            layout_name(transpose_a), rung(native_precision).what));
    return comparison;
}

}  // namespace

// inputs -> candidates (warmed) -> autotune -> timed repetitions -> (emulated: the native
// product of the same inputs, compared over the whole matrix) -> sampled validation.
LadderRunResult run_ladder_rung(LadderPrecision precision, const LadderRunOptions& options, int device_index) {
    gpu::DeviceSelection select(device_index);
    RungTypes types = types_of(precision);
    const std::size_t n = options.n;
    const Input a = make_input(seed_a, n, n, types);
    const Input b = make_input(seed_b, n, n, types);

    // fp8's output type is known once a set-up runs: room for the widest (fp32).
    const bool fp8 = precision == LadderPrecision::fp8;
    const bool emulated = is_emulated(precision);
    RungDevice device(n, types.input_bytes, fp8 ? sizeof(float) : types.output_bytes);
    SHAKEDOWN_CUDA(cudaMemcpy(device.a.get(), a.bytes.data(), a.bytes.size(), cudaMemcpyHostToDevice));
    SHAKEDOWN_CUDA(cudaMemcpy(device.b.get(), b.bytes.data(), b.bytes.size(), cudaMemcpyHostToDevice));

    LadderRunResult result;
    gpu::DeviceBuffer<int> retained_bits(1);
    const int not_written = -2;  // neither a count nor cuBLAS' -1: the pointer was never written
    SHAKEDOWN_CUDA(cudaMemcpy(retained_bits.get(), &not_written, sizeof not_written, cudaMemcpyHostToDevice));
    if (emulated) configure_emulation(precision, device, options, retained_bits.get(), result);
    std::vector<double> warmup_s;
    std::vector<Candidate> candidates = warmed_candidates(precision, device, types, n, options, warmup_s, result);
    const TunedChoice tuned = autotune(candidates, warmup_s, options.autotune, device.stream.get());
    const Candidate& chosen = candidates[tuned.index];
    result.details.emplace_back("algorithm", chosen.label);
    result.details.emplace_back("layout", layout_name(chosen.transpose_a));
    result.details.insert(result.details.end(), tuned.details.begin(), tuned.details.end());
    result.seconds = time_repetitions(chosen, device, options);

    if (precision == LadderPrecision::fp64_emulated) {
        device.stream.synchronize();
        int retained = not_written;
        SHAKEDOWN_CUDA(cudaMemcpy(&retained, retained_bits.get(), sizeof retained, cudaMemcpyDeviceToHost));
        result.details.emplace_back("mantissa_bits_retained",
                                    retained == not_written ? "not written by cuBLAS" : std::to_string(retained));
        // cuBLAS 13.1 on an H200 under the default strategy ran native FP64 and left the count
        // unwritten (the header promises -1): either way no emulation to report.
        if (retained <= 0)
            throw RungNotSupported(fmt::format("cuBLAS did not emulate under CUBLAS_EMULATION_STRATEGY_EAGER (retained "
                                               "mantissa bits {})",
                                               retained == not_written ? "not written" : std::to_string(retained)));
    }

    const auto positions = sample_positions(n, options.samples);
    if (options.corrupt) corrupt_entry(device, types, n, positions[2]);  // the first sampled entry after the corners
    std::string emulation_failure;
    if (emulated) {
        const LadderPrecision native = rung(precision).native;
        const NativeComparison comparison =
            native == LadderPrecision::fp64 ? compare_with_native<double>(device, native, n, chosen.transpose_a, result)
                                            : compare_with_native<float>(device, native, n, chosen.transpose_a, result);
        result.tolerance_vs_native = emulation_tolerance(precision, n, options.fp64_emulation_mantissa_bits);
        const EmulationVerdict verdict =
            judge_emulation(comparison.max_abs_difference, comparison.max_abs_native, result.tolerance_vs_native);
        // BF16x9 has no retained-bit count: a product equal to native fp32 in every bit is cuBLAS
        // having run native fp32 (the emulation sums in another order and differs somewhere).
        if (verdict.identical && precision == LadderPrecision::fp32_emulated)
            throw RungNotSupported(fmt::format("the product equals native {} in all {} x {} entries: cuBLAS ran it natively",
                                               rung(native).name, n, n));
        result.max_rel_error_vs_native = verdict.ratio;
        emulation_failure = verdict.failure;
    }
    std::vector<std::byte> c(n * n * types.output_bytes);
    SHAKEDOWN_CUDA(cudaMemcpy(c.data(), device.c.get(), c.size(), cudaMemcpyDeviceToHost));
    const double factor = fp8 ? fp8_product_scale(fp8_setups[chosen.fp8_setup]) : 1.0;
    validate_samples(c, a, b, types, n, chosen, factor, ladder_tolerance(precision, n, options.fp64_emulation_mantissa_bits),
                     positions, result);
    if (!emulation_failure.empty()) result.failure += (result.failure.empty() ? "" : "; ") + emulation_failure;
    return result;
}

}  // namespace shakedown::kernels
