// GEMM probe for issue 3 on the GPU host: three questions the gemm_ladder and dgemm_fp64 figures
// left open, answered with plain cuBLAS/cuBLASLt calls and plain-text lines.
//   fp8       Which cuBLASLt FP8 e4m3 set-up runs on this GPU and library: a matrix of variants
//             (D type, C given / in place / nullptr, A/B scale pointers, fast accumulation,
//             workspace, n), every algorithm the heuristic offers (up to 16) tried, each run
//             validated against a host reference. Run it under CUBLASLT_LOG_MASK (or _LEVEL) to
//             have the library say why it refuses: every call is preceded by a "== fp8 variant"
//             or "   algo" line, stdout is flushed before each library call.
//   timeline  Is the DGEMM anchor (64.4 TFLOP/s, "cublasGemmEx 8192^3, median of 10") a cold
//             burst? Idle, then back-to-back 8192^3 GEMMs, each timed by its own event pair;
//             fp64 first, then fp16 after another idle period.
//   algos     Is the heuristic's first choice the fastest? fp16, bf16, fp64 at 8192^3, TN and NN,
//             the top 8 heuristic algorithms timed (median of 10 after 3 warm-ups) beside
//             cublasGemmEx, each validated on sampled entries.
//   data      Does the anchor's DGEMM figure come from data that draws less power? The timeline's
//             GEMM (fp64, then fp16) on five input distributions (uniform [-1,1), uniform [0,1),
//             integers -2..2, all 1.0, multiples of 1/8), each --data-seconds long (4) after
//             --data-idle seconds idle (4): median of the first 10 reps and of the last second.
//             About 85 s with the defaults (not part of the default set: name it).
//   fp8 also tries scale placements (one allocation with B at +4/+16/+256 bytes, separate
//   allocations, explicit SCALAR_32F scale mode, A only) to learn why scaled set-ups were refused.
// Build (a CUDA build of shakedown): cmake --build build --target shakedown_gemm_probe
// Run:   build/bench/gpu/shakedown_gemm_probe [fp8] [timeline] [algos] [data] [--idle S]
//            [--timeline-reps N] [--data-idle S] [--data-seconds S] [--device D]
//        (no part named: fp8, timeline, algos; about 90 s on one H200 with the defaults;
//        bench/gpu/make-bundle.sh packs it).
#include "bench/gpu/probe_support.hpp"
#include "core/counter_hash.hpp"
#include "gemm/matrix_fill.hpp"
#include "gpu/cublas_handles.hpp"
#include "gpu/cuda_owners.hpp"

#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <deque>
#include <exception>
#include <string>
#include <thread>
#include <vector>

namespace {

namespace gpu = shakedown::gpu;
namespace probe = shakedown::probe;

// ---------------------------------------------------------------- plumbing

const char* status_name(cublasStatus_t status) { return cublasGetStatusName(status); }

std::string utc_now() {
    const auto now = std::chrono::system_clock::now();
    const std::time_t seconds = std::chrono::system_clock::to_time_t(now);
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
    std::tm parts{};
    gmtime_r(&seconds, &parts);
    char text[64];
    std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%S", &parts);
    char with_ms[80];
    std::snprintf(with_ms, sizeof with_ms, "%s.%03dZ", text, static_cast<int>(ms));
    return with_ms;
}

// Every line is flushed before the next library call, so CUBLASLT_LOG output interleaves in order.
#define SAY(...)                       \
    do {                               \
        std::printf(__VA_ARGS__);      \
        std::fflush(stdout);           \
    } while (0)

// `bytes` of device memory (bytes(), get(), as<T>()).
using DeviceMemory = gpu::DeviceBuffer<std::byte>;
using Event = gpu::CudaEvent;

double milliseconds_between(const Event& start, const Event& stop) {
    float ms = 0.0f;
    SHAKEDOWN_CUDA(cudaEventElapsedTime(&ms, start.get(), stop.get()));
    return ms;
}

using probe::median;

double tflops(int n, double ms) { return 2.0 * n * double(n) * n / (ms * 1e-3) / 1e12; }

// Times `launch` `reps` times after `warmups`, each repetition between its own pair of events.
template <typename Launch>
std::vector<double> time_each_ms(Launch&& launch, int warmups, int reps, cudaStream_t stream) {
    for (int w = 0; w < warmups; ++w) launch();
    std::vector<Event> starts(reps), stops(reps);
    for (int r = 0; r < reps; ++r) {
        SHAKEDOWN_CUDA(cudaEventRecord(starts[r].get(), stream));
        launch();
        SHAKEDOWN_CUDA(cudaEventRecord(stops[r].get(), stream));
    }
    SHAKEDOWN_CUDA(cudaStreamSynchronize(stream));
    std::vector<double> ms(reps);
    for (int r = 0; r < reps; ++r) ms[r] = milliseconds_between(starts[r], stops[r]);
    return ms;
}

// ---------------------------------------------------------------- data

// Counter-based random values, identical on host and device: the product's constexpr hash
// (core/counter_hash.hpp) and uniform entries (gemm/matrix_fill.hpp), called on the device too
// (built with --expt-relaxed-constexpr), so the host recomputes exactly what the device stored
// and no large host copies are needed for the reference.
using shakedown::mix64;
// Uniform in [-1, 1): the product's random_entry.
__host__ __device__ inline double uniform_pm1(std::uint64_t seed, std::uint64_t index) {
    return shakedown::gemm::random_entry(seed, index);
}
// FP8 inputs: random sign, magnitude in [0.125, 1): never zero, never subnormal in e4m3, and a
// dot product of 8192 terms stays far below e4m3's largest value 448.
__host__ __device__ inline float fp8_source_value(std::uint64_t seed, std::uint64_t index) {
    const double u = uniform_pm1(seed, index);
    const double magnitude = 0.125 + 0.875 * std::fabs(u);
    return static_cast<float>(u < 0 ? -magnitude : magnitude);
}

// How the "data" part distributes its inputs (the other parts use uniform [-1, 1)): does the
// DGEMM anchor's 64.4 TFLOP/s come from data that draws less power under the 700 W cap?
enum class Dist { uniform_pm1, uniform_01, small_ints, ones, eighths };
const char* dist_name(Dist dist) {
    switch (dist) {
    case Dist::uniform_pm1: return "uniform [-1,1)";
    case Dist::uniform_01: return "uniform [0,1)";
    case Dist::small_ints: return "integers -2..2";
    case Dist::ones: return "all 1.0";
    case Dist::eighths: return "multiples of 1/8 in [-1,1]";
    }
    return "?";
}
__host__ __device__ inline double source_value(Dist dist, std::uint64_t seed, std::uint64_t index) {
    switch (dist) {
    case Dist::uniform_pm1: return uniform_pm1(seed, index);
    case Dist::uniform_01: return 0.5 * (uniform_pm1(seed, index) + 1.0);
    case Dist::small_ints: return static_cast<double>(static_cast<int>(mix64(seed * 0xD1B54A32D192ED03ull + index) % 5) - 2);
    case Dist::ones: return 1.0;
    case Dist::eighths: return std::round(uniform_pm1(seed, index) * 8.0) / 8.0;  // 3 mantissa bits at most
    }
    return 0.0;
}

enum class Kind { fp64, fp32, fp16, bf16, e4m3 };

const char* kind_name(Kind kind) {
    switch (kind) {
    case Kind::fp64: return "fp64";
    case Kind::fp32: return "fp32";
    case Kind::fp16: return "fp16";
    case Kind::bf16: return "bf16";
    case Kind::e4m3: return "e4m3";
    }
    return "?";
}
std::size_t kind_bytes(Kind kind) {
    switch (kind) {
    case Kind::fp64: return 8;
    case Kind::fp32: return 4;
    case Kind::fp16:
    case Kind::bf16: return 2;
    case Kind::e4m3: return 1;
    }
    return 0;
}
cudaDataType_t kind_type(Kind kind) {
    switch (kind) {
    case Kind::fp64: return CUDA_R_64F;
    case Kind::fp32: return CUDA_R_32F;
    case Kind::fp16: return CUDA_R_16F;
    case Kind::bf16: return CUDA_R_16BF;
    case Kind::e4m3: return CUDA_R_8F_E4M3;
    }
    return CUDA_R_32F;
}

// The value an input element of `kind` holds (rounded as stored), on host and device alike.
__host__ __device__ inline double stored_input(Kind kind, std::uint64_t seed, std::uint64_t index, Dist dist = Dist::uniform_pm1) {
    switch (kind) {
    case Kind::fp64: return source_value(dist, seed, index);
    case Kind::fp32: return static_cast<float>(source_value(dist, seed, index));
    case Kind::fp16: return __half2float(__float2half(static_cast<float>(source_value(dist, seed, index))));
    case Kind::bf16: return __bfloat162float(__float2bfloat16(static_cast<float>(source_value(dist, seed, index))));
    case Kind::e4m3: return static_cast<float>(__nv_fp8_e4m3(fp8_source_value(seed, index)));
    }
    return 0.0;
}

__global__ void fill_kernel(void* out, Kind kind, std::uint64_t seed, std::uint64_t count, Dist dist) {
    for (std::uint64_t i = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x; i < count;
         i += std::uint64_t(gridDim.x) * blockDim.x) {
        switch (kind) {
        case Kind::fp64: static_cast<double*>(out)[i] = source_value(dist, seed, i); break;
        case Kind::fp32: static_cast<float*>(out)[i] = static_cast<float>(source_value(dist, seed, i)); break;
        case Kind::fp16: static_cast<__half*>(out)[i] = __float2half(static_cast<float>(source_value(dist, seed, i))); break;
        case Kind::bf16:
            static_cast<__nv_bfloat16*>(out)[i] = __float2bfloat16(static_cast<float>(source_value(dist, seed, i)));
            break;
        case Kind::e4m3: static_cast<__nv_fp8_e4m3*>(out)[i] = __nv_fp8_e4m3(fp8_source_value(seed, i)); break;
        }
    }
}

void fill(const DeviceMemory& memory, Kind kind, std::uint64_t seed, Dist dist = Dist::uniform_pm1) {
    const std::uint64_t count = memory.bytes() / kind_bytes(kind);
    fill_kernel<<<1024, 256>>>(memory.get(), kind, seed, count, dist);
    SHAKEDOWN_CUDA_LAUNCH("fill kernel");
    SHAKEDOWN_CUDA(cudaDeviceSynchronize());
}

// Copies the sampled elements of D (column-major, leading dimension n) into a small buffer.
__global__ void gather_kernel(const unsigned char* d, const std::uint64_t* offsets, int count, int element_bytes,
                              unsigned char* out) {
    const int s = blockIdx.x * blockDim.x + threadIdx.x;
    if (s >= count) return;
    for (int b = 0; b < element_bytes; ++b) out[s * element_bytes + b] = d[offsets[s] * element_bytes + b];
}

double load_output(Kind kind, const unsigned char* bytes) {
    switch (kind) {
    case Kind::fp64: { double v; std::memcpy(&v, bytes, 8); return v; }
    case Kind::fp32: { float v; std::memcpy(&v, bytes, 4); return v; }
    case Kind::fp16: { __half v; std::memcpy(&v, bytes, 2); return __half2float(v); }
    case Kind::bf16: { __nv_bfloat16 v; std::memcpy(&v, bytes, 2); return __bfloat162float(v); }
    case Kind::e4m3: { __nv_fp8_e4m3 v; std::memcpy(&v, bytes, 1); return static_cast<float>(v); }
    }
    return NAN;
}

// Reference for C = op(A) op(B) at sampled (i, j): FP64 sums of the stored inputs.
// A is read as element (row i of op(A), p): TN -> A stored k x n, index p + i*n; NN -> A stored
// n x k, index i + p*n. B is always stored k x n (op N): index p + j*n.
struct Samples {
    std::vector<std::uint64_t> offsets;  // i + j*n in D
    std::vector<double> expected;        // sum a b
    std::vector<double> magnitude;       // sum |a b|
};

Samples make_samples(int n, Kind input, bool a_transposed, std::uint64_t seed_a, std::uint64_t seed_b, int count,
                     Dist dist = Dist::uniform_pm1) {
    Samples samples;
    const std::uint64_t size = static_cast<std::uint64_t>(n);
    std::vector<std::pair<std::uint64_t, std::uint64_t>> positions = {{0, 0}, {size - 1, size - 1}};
    for (std::uint64_t s = 0; static_cast<int>(positions.size()) < count; ++s)
        positions.emplace_back(mix64(2 * s + 7) % size, mix64(2 * s + 8) % size);
    for (const auto& [i, j] : positions) {
        double sum = 0.0, compensation = 0.0, magnitude = 0.0;
        for (std::uint64_t p = 0; p < size; ++p) {
            const double a = stored_input(input, seed_a, a_transposed ? p + i * size : i + p * size, dist);
            const double b = stored_input(input, seed_b, p + j * size, dist);
            const double term = a * b;
            const double t = sum + term;  // Neumaier-compensated
            compensation += std::fabs(sum) >= std::fabs(term) ? (sum - t) + term : (term - t) + sum;
            sum = t;
            magnitude += std::fabs(term);
        }
        samples.offsets.push_back(i + j * size);
        samples.expected.push_back(sum + compensation);
        samples.magnitude.push_back(magnitude);
    }
    return samples;
}

struct Verdict {
    bool ok = true;
    double worst = 0.0;  // worst error / allowed error
    std::string first_wrong;
};

// D's sampled entries against `factor` * reference; allowed error: tolerance * sum|ab| (accumulation)
// plus output_rounding * |expected| (rounding to the output type).
Verdict validate(const void* d, Kind output, const Samples& samples, double factor, double tolerance,
                 double output_rounding) {
    const int count = static_cast<int>(samples.offsets.size());
    const std::size_t bytes = kind_bytes(output);
    DeviceMemory offsets(count * sizeof(std::uint64_t)), gathered(count * bytes);
    SHAKEDOWN_CUDA(cudaMemcpy(offsets.get(), samples.offsets.data(), offsets.bytes(), cudaMemcpyHostToDevice));
    gather_kernel<<<(count + 127) / 128, 128>>>(static_cast<const unsigned char*>(d), offsets.as<std::uint64_t>(), count,
                                                static_cast<int>(bytes), gathered.as<unsigned char>());
    SHAKEDOWN_CUDA_LAUNCH("gather kernel");
    std::vector<unsigned char> host(count * bytes);
    SHAKEDOWN_CUDA(cudaMemcpy(host.data(), gathered.get(), host.size(), cudaMemcpyDeviceToHost));
    Verdict verdict;
    for (int s = 0; s < count; ++s) {
        const double value = load_output(output, host.data() + s * bytes);
        const double expected = factor * samples.expected[s];
        const double allowed = tolerance * factor * samples.magnitude[s] + output_rounding * std::fabs(expected);
        const double error = std::fabs(value - expected);
        const double ratio = std::isfinite(error) ? error / allowed : INFINITY;
        verdict.worst = std::max(verdict.worst, ratio);
        if (!(ratio <= 1.0) && verdict.ok) {
            verdict.ok = false;
            char text[200];
            std::snprintf(text, sizeof text, "D(%llu) = %.6g, expected %.6g",
                          static_cast<unsigned long long>(samples.offsets[s]), value, expected);
            verdict.first_wrong = text;
        }
    }
    return verdict;
}

// ---------------------------------------------------------------- cuBLASLt helpers

struct LtObjects {
    cublasLtMatmulDesc_t desc = nullptr;
    cublasLtMatrixLayout_t a = nullptr, b = nullptr, c = nullptr, d = nullptr;
    cublasLtMatmulPreference_t preference = nullptr;
    LtObjects() = default;
    LtObjects(const LtObjects&) = delete;
    LtObjects& operator=(const LtObjects&) = delete;
    ~LtObjects() {
        if (preference) cublasLtMatmulPreferenceDestroy(preference);
        for (auto layout : {a, b, c, d})
            if (layout) cublasLtMatrixLayoutDestroy(layout);
        if (desc) cublasLtMatmulDescDestroy(desc);
    }
};

std::string describe_algo(const cublasLtMatmulAlgo_t& algo) {
    int id = -1;
    std::uint32_t tile = 0, stages = 0, reduction = 0, swizzle = 0, custom = 0;
    std::int32_t split_k = 0;
    std::uint16_t inner = 0, cluster = 0;
    std::size_t written = 0;
    cublasLtMatmulAlgoConfigGetAttribute(&algo, CUBLASLT_ALGO_CONFIG_ID, &id, sizeof id, &written);
    cublasLtMatmulAlgoConfigGetAttribute(&algo, CUBLASLT_ALGO_CONFIG_TILE_ID, &tile, sizeof tile, &written);
    cublasLtMatmulAlgoConfigGetAttribute(&algo, CUBLASLT_ALGO_CONFIG_STAGES_ID, &stages, sizeof stages, &written);
    cublasLtMatmulAlgoConfigGetAttribute(&algo, CUBLASLT_ALGO_CONFIG_SPLITK_NUM, &split_k, sizeof split_k, &written);
    cublasLtMatmulAlgoConfigGetAttribute(&algo, CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME, &reduction, sizeof reduction, &written);
    cublasLtMatmulAlgoConfigGetAttribute(&algo, CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING, &swizzle, sizeof swizzle, &written);
    cublasLtMatmulAlgoConfigGetAttribute(&algo, CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION, &custom, sizeof custom, &written);
    cublasLtMatmulAlgoConfigGetAttribute(&algo, CUBLASLT_ALGO_CONFIG_INNER_SHAPE_ID, &inner, sizeof inner, &written);
    cublasLtMatmulAlgoConfigGetAttribute(&algo, CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID, &cluster, sizeof cluster, &written);
    char text[200];
    std::snprintf(text, sizeof text, "id=%d tile=%u stages=%u splitK=%d red=%u swz=%u custom=%u inner=%u cluster=%u", id,
                  tile, stages, split_k, reduction, swizzle, custom, unsigned(inner), unsigned(cluster));
    return text;
}

// ---------------------------------------------------------------- part a: fp8

enum class CMode { separate, in_place, null_beta0 };
const char* c_mode_name(CMode mode) {
    switch (mode) {
    case CMode::separate: return "C separate buffer";
    case CMode::in_place: return "C = D (in place)";
    case CMode::null_beta0: return "C nullptr (beta 0)";
    }
    return "?";
}

// Where the A/B (and D) scale factors live. With B's scale 4 bytes into A's allocation
// ("shared_plus4") cuBLASLt 13.1 refused every variant (NOT_SUPPORTED) while all unscaled ones
// ran (H200, bench/gpu/gemm_probe fp8): these placements tell alignment apart.
enum class ScalePlacement {
    none,            // no A/B scale pointers
    shared_plus4,    // A at the allocation's start, B 4 bytes later (refused, see above)
    shared_plus16,   // A at the start, B 16 bytes later
    shared_plus256,  // A at the start, B 256 bytes later
    separate,        // each scale its own cudaMalloc (256-byte aligned), as torch and NVIDIA's sample do
    separate_mode,   // separate, and A/B_SCALE_MODE = SCALAR_32F set explicitly (its default)
    a_only,          // only A's scale pointer (at the allocation's start), B's unset
};
const char* placement_name(ScalePlacement placement) {
    switch (placement) {
    case ScalePlacement::none: return "not set";
    case ScalePlacement::shared_plus4: return "set, one allocation, B at +4 bytes";
    case ScalePlacement::shared_plus16: return "set, one allocation, B at +16 bytes";
    case ScalePlacement::shared_plus256: return "set, one allocation, B at +256 bytes";
    case ScalePlacement::separate: return "set, separate allocations";
    case ScalePlacement::separate_mode: return "set, separate allocations, SCALE_MODE SCALAR_32F explicit";
    case ScalePlacement::a_only: return "A only (B unset)";
    }
    return "?";
}

struct Fp8Variant {
    int n;
    Kind d_kind;
    CMode c_mode;
    ScalePlacement scales;
    std::int8_t fast_accum;
    std::size_t workspace;
    bool amax = false;  // e4m3 D only: also ask for amax(D)
};

struct Fp8Buffers {
    DeviceMemory a{std::size_t(8192) * 8192}, b{std::size_t(8192) * 8192};
    DeviceMemory c{std::size_t(8192) * 8192 * 4}, d{std::size_t(8192) * 8192 * 4};
    DeviceMemory workspace{std::size_t(64) << 20};
    DeviceMemory scalars{512};  // a_scale at 0, b_scale at +4 / +16 / +256 bytes, d_scale at +8, amax at +12
    DeviceMemory scale_a{sizeof(float)}, scale_b{sizeof(float)}, scale_d{sizeof(float)};  // separate allocations
};

constexpr float fp8_a_scale = 0.5f, fp8_b_scale = 0.5f, fp8_d_scale = 0.5f;

struct Fp8Tally {
    int variants = 0, heuristic_failed = 0, no_algorithm = 0, variants_running = 0, algos_tried = 0, algos_ran = 0,
        algos_wrong = 0;
    std::vector<std::string> running;  // one line per variant with at least one algorithm that ran
    std::vector<std::string> refused;  // one line per variant whose offered algorithms all failed
};

void run_fp8_variant(int number, const Fp8Variant& v, cublasLtHandle_t lt, Fp8Buffers& buffers, const Samples& samples,
                     cudaStream_t stream, Fp8Tally& tally) {
    // C's type: the output type for 16/32-bit D; bf16 for an e4m3 D (cuBLASLt's FP8 table pairs
    // e4m3 outputs with a bf16 or fp16 C).
    const Kind c_kind = v.d_kind == Kind::e4m3 ? Kind::bf16 : v.d_kind;
    SAY("== fp8 variant %d: n=%d A/B e4m3 TN, D %s, %s (C type %s), A/B scale pointers %s, fast_accum %d, "
        "workspace %zu MiB%s%s\n",
        number, v.n, kind_name(v.d_kind), c_mode_name(v.c_mode), kind_name(c_kind), placement_name(v.scales),
        int(v.fast_accum), v.workspace >> 20, v.d_kind == Kind::e4m3 ? ", D scale set" : "", v.amax ? ", amax(D) set" : "");
    ++tally.variants;
    LtObjects lt_objects;
    cublasStatus_t status = cublasLtMatmulDescCreate(&lt_objects.desc, CUBLAS_COMPUTE_32F, CUDA_R_32F);
    const cublasOperation_t transpose = CUBLAS_OP_T, none = CUBLAS_OP_N;
    cublasLtMatmulDescSetAttribute(lt_objects.desc, CUBLASLT_MATMUL_DESC_TRANSA, &transpose, sizeof transpose);
    cublasLtMatmulDescSetAttribute(lt_objects.desc, CUBLASLT_MATMUL_DESC_TRANSB, &none, sizeof none);
    cublasLtMatmulDescSetAttribute(lt_objects.desc, CUBLASLT_MATMUL_DESC_FAST_ACCUM, &v.fast_accum, sizeof v.fast_accum);
    float* scalars = buffers.scalars.as<float>();
    const bool separate = v.scales == ScalePlacement::separate || v.scales == ScalePlacement::separate_mode;
    if (v.scales != ScalePlacement::none) {
        const float* a_scale = separate ? buffers.scale_a.as<float>() : scalars;
        const float* b_scale = separate                                      ? buffers.scale_b.as<float>()
                               : v.scales == ScalePlacement::shared_plus16  ? scalars + 4
                               : v.scales == ScalePlacement::shared_plus256 ? scalars + 64
                                                                            : scalars + 1;
        cublasLtMatmulDescSetAttribute(lt_objects.desc, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &a_scale, sizeof a_scale);
        if (v.scales != ScalePlacement::a_only)
            cublasLtMatmulDescSetAttribute(lt_objects.desc, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &b_scale, sizeof b_scale);
        if (v.scales == ScalePlacement::separate_mode) {
            const std::int32_t scalar_mode = CUBLASLT_MATMUL_MATRIX_SCALE_SCALAR_32F;
            const cublasStatus_t a_mode = cublasLtMatmulDescSetAttribute(lt_objects.desc, CUBLASLT_MATMUL_DESC_A_SCALE_MODE,
                                                                         &scalar_mode, sizeof scalar_mode);
            const cublasStatus_t b_mode = cublasLtMatmulDescSetAttribute(lt_objects.desc, CUBLASLT_MATMUL_DESC_B_SCALE_MODE,
                                                                         &scalar_mode, sizeof scalar_mode);
            SAY("   set A/B_SCALE_MODE: %s / %s\n", status_name(a_mode), status_name(b_mode));
        }
    }
    if (v.d_kind == Kind::e4m3) {
        const float* d_scale = separate ? buffers.scale_d.as<float>() : scalars + 2;
        cublasLtMatmulDescSetAttribute(lt_objects.desc, CUBLASLT_MATMUL_DESC_D_SCALE_POINTER, &d_scale, sizeof d_scale);
        if (v.amax) {
            float* amax = scalars + 3;  // amax stays in the shared block (4-byte aligned: an output)
            cublasLtMatmulDescSetAttribute(lt_objects.desc, CUBLASLT_MATMUL_DESC_AMAX_D_POINTER, &amax, sizeof amax);
        }
    }
    const std::uint64_t n = static_cast<std::uint64_t>(v.n);
    const std::int64_t ld = v.n;
    cublasLtMatrixLayoutCreate(&lt_objects.a, CUDA_R_8F_E4M3, n, n, ld);  // stored k x m, op T
    cublasLtMatrixLayoutCreate(&lt_objects.b, CUDA_R_8F_E4M3, n, n, ld);  // stored k x n, op N
    cublasLtMatrixLayoutCreate(&lt_objects.c, kind_type(c_kind), n, n, ld);
    cublasLtMatrixLayoutCreate(&lt_objects.d, kind_type(v.d_kind), n, n, ld);
    cublasLtMatmulPreferenceCreate(&lt_objects.preference);
    cublasLtMatmulPreferenceSetAttribute(lt_objects.preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &v.workspace,
                                         sizeof v.workspace);
    if (status != CUBLAS_STATUS_SUCCESS) {
        SAY("   descriptor: %s\n", status_name(status));
        return;
    }

    constexpr int requested = 16;
    cublasLtMatmulHeuristicResult_t results[requested] = {};
    int returned = 0;
    status = cublasLtMatmulAlgoGetHeuristic(lt, lt_objects.desc, lt_objects.a, lt_objects.b, lt_objects.c, lt_objects.d,
                                            lt_objects.preference, requested, results, &returned);
    SAY("   heuristic: %s, %d of %d requested\n", status_name(status), returned, requested);
    if (status != CUBLAS_STATUS_SUCCESS) {
        ++tally.heuristic_failed;
        return;
    }
    if (returned == 0) {
        ++tally.no_algorithm;
        return;
    }

    void* d = buffers.d.get();
    const void* c = v.c_mode == CMode::separate ? buffers.c.get() : v.c_mode == CMode::in_place ? d : nullptr;
    const float alpha = 1.0f, beta = 0.0f;
    const double ab_factor = v.scales == ScalePlacement::none     ? 1.0
                             : v.scales == ScalePlacement::a_only ? double(fp8_a_scale)
                                                                  : double(fp8_a_scale) * fp8_b_scale;
    const double factor = ab_factor * (v.d_kind == Kind::e4m3 ? fp8_d_scale : 1.0);
    // Output rounding: e4m3 keeps 3 mantissa bits (half an ulp: 2^-4), bf16 7, fp16 10, fp32 23.
    const double rounding = v.d_kind == Kind::e4m3 ? 0.0625 : v.d_kind == Kind::bf16 ? 0.0039 : v.d_kind == Kind::fp16 ? 0.0005 : 0.0;
    bool any_ran = false;
    std::string best;
    double best_rate = 0.0;
    for (int index = 0; index < returned; ++index) {
        const cublasLtMatmulHeuristicResult_t& result = results[index];
        cublasLtMatmulHeuristicResult_t checked{};
        const cublasStatus_t check = cublasLtMatmulAlgoCheck(lt, lt_objects.desc, lt_objects.a, lt_objects.b, lt_objects.c,
                                                             lt_objects.d, &result.algo, &checked);
        SAY("   algo %2d: %s state=%s ws=%zu waves=%.2f check=%s(ws %zu)\n", index, describe_algo(result.algo).c_str(),
            status_name(result.state), result.workspaceSize, result.wavesCount, status_name(check), checked.workspaceSize);
        ++tally.algos_tried;
        SHAKEDOWN_CUDA(cudaMemsetAsync(d, 0xFF, buffers.d.bytes(), stream));  // NaN everywhere: stale results cannot pass
        const auto launch = [&] {
            return cublasLtMatmul(lt, lt_objects.desc, &alpha, buffers.a.get(), lt_objects.a, buffers.b.get(), lt_objects.b,
                                  &beta, c, lt_objects.c, d, lt_objects.d, &result.algo, buffers.workspace.get(),
                                  v.workspace, stream);
        };
        const cublasStatus_t ran = launch();
        const cudaError_t after = cudaStreamSynchronize(stream);
        if (ran != CUBLAS_STATUS_SUCCESS || after != cudaSuccess) {
            SAY("            matmul: %s%s%s\n", status_name(ran), after != cudaSuccess ? ", stream: " : "",
                after != cudaSuccess ? cudaGetErrorString(after) : "");
            if (after != cudaSuccess) std::exit(1);  // a sticky CUDA error ends the probe
            continue;
        }
        const Verdict verdict = validate(d, v.d_kind, samples, factor, 1e-2, rounding);
        const auto ms = time_each_ms([&] { launch(); }, 2, 5, stream);
        const double rate = tflops(v.n, median(ms));
        ++tally.algos_ran;
        if (!verdict.ok) ++tally.algos_wrong;
        any_ran = true;
        SAY("            matmul: SUCCESS, %.1f TFLOP/s (median of 5), validation %s (worst %.3g of allowed)%s%s\n", rate,
            verdict.ok ? "ok" : "WRONG", verdict.worst, verdict.ok ? "" : ": ", verdict.first_wrong.c_str());
        if (verdict.ok && rate > best_rate) {
            best_rate = rate;
            char text[80];
            std::snprintf(text, sizeof text, "algo %d: %.1f TFLOP/s", index, rate);
            best = text;
        }
    }
    if (any_ran) {
        ++tally.variants_running;
        char text[300];
        std::snprintf(text, sizeof text, "variant %d (n=%d D %s, %s, scales %s, fast_accum %d, ws %zu MiB): best valid %s",
                      number, v.n, kind_name(v.d_kind), c_mode_name(v.c_mode), placement_name(v.scales),
                      int(v.fast_accum), v.workspace >> 20, best.empty() ? "none" : best.c_str());
        tally.running.push_back(text);
    } else {
        char text[300];
        std::snprintf(text, sizeof text, "variant %d (n=%d D %s, %s, scales %s, fast_accum %d, ws %zu MiB): %d algorithms, none ran",
                      number, v.n, kind_name(v.d_kind), c_mode_name(v.c_mode), placement_name(v.scales), int(v.fast_accum),
                      v.workspace >> 20, returned);
        tally.refused.push_back(text);
    }
}

void part_fp8(cublasLtHandle_t lt, cudaStream_t stream) {
    SAY("\n#### part fp8: cuBLASLt e4m3 x e4m3, TN, compute 32F, scale 32F (%s)\n", utc_now().c_str());
    Fp8Buffers buffers;
    constexpr std::uint64_t seed_a = 101, seed_b = 202;
    fill(buffers.a, Kind::e4m3, seed_a);
    fill(buffers.b, Kind::e4m3, seed_b);
    SHAKEDOWN_CUDA(cudaMemset(buffers.c.get(), 0, buffers.c.bytes()));
    std::vector<float> scalars(buffers.scalars.bytes() / sizeof(float), fp8_b_scale);  // B's scale at every offset tried
    scalars[0] = fp8_a_scale;
    scalars[2] = fp8_d_scale;
    scalars[3] = 0.0f;  // amax
    SHAKEDOWN_CUDA(cudaMemcpy(buffers.scalars.get(), scalars.data(), buffers.scalars.bytes(), cudaMemcpyHostToDevice));
    SHAKEDOWN_CUDA(cudaMemcpy(buffers.scale_a.get(), &fp8_a_scale, sizeof(float), cudaMemcpyHostToDevice));
    SHAKEDOWN_CUDA(cudaMemcpy(buffers.scale_b.get(), &fp8_b_scale, sizeof(float), cudaMemcpyHostToDevice));
    SHAKEDOWN_CUDA(cudaMemcpy(buffers.scale_d.get(), &fp8_d_scale, sizeof(float), cudaMemcpyHostToDevice));

    std::vector<Fp8Variant> variants;
    constexpr std::size_t ws64 = std::size_t(64) << 20;
    for (int n : {8192, 4096})
        for (Kind d : {Kind::bf16, Kind::fp16, Kind::fp32, Kind::e4m3})
            for (CMode c : {CMode::null_beta0, CMode::separate, CMode::in_place}) {
                if (d == Kind::e4m3 && c == CMode::in_place) continue;  // C is 16-bit, D 8-bit: no in-place form
                for (ScalePlacement scales : {ScalePlacement::shared_plus4, ScalePlacement::none})
                    for (std::int8_t fast : {std::int8_t{0}, std::int8_t{1}}) variants.push_back({n, d, c, scales, fast, ws64});
            }
    // Workspace sizes (PyTorch used 1 MiB for years; cuBLAS's own default on Hopper is 32 MiB).
    for (std::size_t ws : {std::size_t(0), std::size_t(1) << 20, std::size_t(32) << 20})
        variants.push_back({8192, Kind::bf16, CMode::null_beta0, ScalePlacement::shared_plus4, 0, ws});
    variants.push_back({8192, Kind::e4m3, CMode::null_beta0, ScalePlacement::shared_plus4, 0, ws64, true});
    // Scale placements (is alignment the cause of the refusals?): torch's form, both accumulations,
    // and the D e4m3 form with every scale in its own allocation.
    for (ScalePlacement scales : {ScalePlacement::separate, ScalePlacement::shared_plus16, ScalePlacement::shared_plus256,
                                  ScalePlacement::separate_mode, ScalePlacement::a_only})
        for (std::int8_t fast : {std::int8_t{0}, std::int8_t{1}})
            variants.push_back({8192, Kind::bf16, CMode::null_beta0, scales, fast, ws64});
    variants.push_back({8192, Kind::e4m3, CMode::null_beta0, ScalePlacement::separate, 0, ws64});

    Fp8Tally tally;
    for (int n : {8192, 4096}) {
        const auto started = std::chrono::steady_clock::now();
        const Samples samples = make_samples(n, Kind::e4m3, true, seed_a, seed_b, 64);
        SAY("   host reference for n=%d: %zu sampled entries (%.1f s)\n", n, samples.offsets.size(),
            std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
        for (std::size_t i = 0; i < variants.size(); ++i)
            if (variants[i].n == n) run_fp8_variant(static_cast<int>(i), variants[i], lt, buffers, samples, stream, tally);
    }
    SAY("## fp8 summary: %d variants, heuristic failed %d, no algorithm %d, variants with a running algorithm %d; "
        "algorithms tried %d, ran %d, wrong %d\n",
        tally.variants, tally.heuristic_failed, tally.no_algorithm, tally.variants_running, tally.algos_tried, tally.algos_ran,
        tally.algos_wrong);
    for (const auto& line : tally.running) SAY("## fp8 runs: %s\n", line.c_str());
    for (const auto& line : tally.refused) SAY("## fp8 refused: %s\n", line.c_str());
}

// ---------------------------------------------------------------- part b: cold-start timeline

void part_timeline(cublasHandle_t blas, cudaStream_t stream, Kind kind, int reps, int idle_s) {
    constexpr int n = 8192;
    const bool fp64 = kind == Kind::fp64;
    SAY("\n#### part timeline %s: cublasGemmEx NN %d^3, %s, random data in [-1,1), %d back-to-back reps after %d s idle\n",
        kind_name(kind), n, fp64 ? "compute 64F" : "compute 32F, fp16 out", reps, idle_s);
    const std::size_t bytes = std::size_t(n) * n * kind_bytes(kind);
    DeviceMemory a(bytes), b(bytes), c(bytes);
    fill(a, kind, 11);
    fill(b, kind, 12);
    const double alpha64 = 1.0, beta64 = 0.0;
    const float alpha32 = 1.0f, beta32 = 0.0f;
    const void* alpha = fp64 ? static_cast<const void*>(&alpha64) : &alpha32;
    const void* beta = fp64 ? static_cast<const void*>(&beta64) : &beta32;
    const cudaDataType_t type = kind_type(kind);
    const cublasComputeType_t compute = fp64 ? CUBLAS_COMPUTE_64F : CUBLAS_COMPUTE_32F;
    const auto gemm = [&] {
        const cublasStatus_t status = cublasGemmEx(blas, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, alpha, a.get(), type, n, b.get(),
                                                   type, n, beta, c.get(), type, n, compute, CUBLAS_GEMM_DEFAULT);
        if (status != CUBLAS_STATUS_SUCCESS) {
            SAY("FATAL cublasGemmEx: %s\n", status_name(status));
            std::exit(1);
        }
    };
    gemm();  // library and kernel loading happen before the idle period, not in rep 0
    SHAKEDOWN_CUDA(cudaStreamSynchronize(stream));
    SAY("   idle from %s\n", utc_now().c_str());
    std::this_thread::sleep_for(std::chrono::seconds(idle_s));
    SAY("   burst starts %s\n", utc_now().c_str());
    std::vector<Event> starts(reps), stops(reps);
    for (int r = 0; r < reps; ++r) {
        SHAKEDOWN_CUDA(cudaEventRecord(starts[r].get(), stream));
        gemm();
        SHAKEDOWN_CUDA(cudaEventRecord(stops[r].get(), stream));
    }
    SHAKEDOWN_CUDA(cudaStreamSynchronize(stream));
    SAY("   burst ends %s\n", utc_now().c_str());
    std::vector<double> rates(reps);
    for (int r = 0; r < reps; ++r) rates[r] = tflops(n, milliseconds_between(starts[r], stops[r]));
    for (int first = 0; first < reps; first += 10) {
        std::string line;
        char cell[32];
        for (int r = first; r < std::min(reps, first + 10); ++r) {
            std::snprintf(cell, sizeof cell, " %7.2f", rates[r]);
            line += cell;
        }
        SAY("   %s reps %3d-%3d (t=%7.1f ms):%s\n", kind_name(kind), first, std::min(reps, first + 10) - 1,
            milliseconds_between(starts[0], starts[first]), line.c_str());
    }
    const auto median_of = [&](int from, int to) {
        return median(std::vector<double>(rates.begin() + std::min(from, reps), rates.begin() + std::min(to, reps)));
    };
    SAY("## timeline %s: median TFLOP/s reps 0-9 %.2f, reps 100-149 %.2f, all %.2f, max %.2f, burst %.0f ms\n",
        kind_name(kind), median_of(0, 10), median_of(100, 150), median_of(0, reps),
        *std::max_element(rates.begin(), rates.end()), milliseconds_between(starts[0], stops[reps - 1]));
}

// ---------------------------------------------------------------- part d: data distributions

// The timeline's GEMM (cublasGemmEx NN 8192^3) on differently distributed inputs, each run
// `seconds` long after `idle_s` of idle: the first 10 repetitions' median (a burst, like the
// anchor's "median of 10") and the last second's median (sustained, under the power cap).
void part_data(cublasHandle_t blas, cudaStream_t stream, Kind kind, Dist dist, double seconds, int idle_s) {
    constexpr int n = 8192;
    const bool fp64 = kind == Kind::fp64;
    SAY("\n#### part data %s, %s: cublasGemmEx NN %d^3, %.1f s after %d s idle\n", kind_name(kind), dist_name(dist), n, seconds,
        idle_s);
    const std::size_t bytes = std::size_t(n) * n * kind_bytes(kind);
    DeviceMemory a(bytes), b(bytes), c(bytes);
    constexpr std::uint64_t seed_a = 41, seed_b = 42;
    fill(a, kind, seed_a, dist);
    fill(b, kind, seed_b, dist);
    const double alpha64 = 1.0, beta64 = 0.0;
    const float alpha32 = 1.0f, beta32 = 0.0f;
    const void* alpha = fp64 ? static_cast<const void*>(&alpha64) : &alpha32;
    const void* beta = fp64 ? static_cast<const void*>(&beta64) : &beta32;
    const cudaDataType_t type = kind_type(kind);
    const cublasComputeType_t compute = fp64 ? CUBLAS_COMPUTE_64F : CUBLAS_COMPUTE_32F;
    const auto gemm = [&] {
        const cublasStatus_t status = cublasGemmEx(blas, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, alpha, a.get(), type, n, b.get(),
                                                   type, n, beta, c.get(), type, n, compute, CUBLAS_GEMM_DEFAULT);
        if (status != CUBLAS_STATUS_SUCCESS) {
            SAY("FATAL cublasGemmEx: %s\n", status_name(status));
            std::exit(1);
        }
    };
    SHAKEDOWN_CUDA(cudaMemsetAsync(c.get(), 0xFF, c.bytes(), stream));
    gemm();
    SHAKEDOWN_CUDA(cudaStreamSynchronize(stream));
    const double tolerance = fp64 ? 2.0 * n * std::ldexp(1.0, -53) : 2.0 * n * std::ldexp(1.0, -24);
    const double rounding = kind == Kind::fp16 ? std::ldexp(1.0, -11) : 0.0;
    const Verdict verdict =
        validate(c.get(), kind, make_samples(n, kind, false, seed_a, seed_b, 8, dist), 1.0, tolerance, rounding);
    SAY("   validation %s (worst %.3g of allowed)%s%s; idle from %s\n", verdict.ok ? "ok" : "WRONG", verdict.worst,
        verdict.ok ? "" : ": ", verdict.first_wrong.c_str(), utc_now().c_str());
    std::this_thread::sleep_for(std::chrono::seconds(idle_s));
    SAY("   burst starts %s\n", utc_now().c_str());
    // Batches of 10 back-to-back repetitions, each between its own events, until `seconds` passed.
    std::deque<Event> starts, stops;
    const auto began = std::chrono::steady_clock::now();
    while (std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count() < seconds) {
        for (int r = 0; r < 10; ++r) {
            SHAKEDOWN_CUDA(cudaEventRecord(starts.emplace_back().get(), stream));
            gemm();
            SHAKEDOWN_CUDA(cudaEventRecord(stops.emplace_back().get(), stream));
        }
        SHAKEDOWN_CUDA(cudaStreamSynchronize(stream));
    }
    SAY("   burst ends %s\n", utc_now().c_str());
    const std::size_t reps = starts.size();
    std::vector<double> rates(reps), at_ms(reps);
    for (std::size_t r = 0; r < reps; ++r) {
        rates[r] = tflops(n, milliseconds_between(starts[r], stops[r]));
        at_ms[r] = milliseconds_between(starts[0], starts[r]);
    }
    const double end_ms = milliseconds_between(starts[0], stops[reps - 1]);
    std::vector<double> last_second;
    for (std::size_t r = 0; r < reps; ++r)
        if (at_ms[r] >= end_ms - 1000.0) last_second.push_back(rates[r]);
    const std::vector<double> first_ten(rates.begin(), rates.begin() + std::min<std::size_t>(10, reps));
    SAY("## data %s %-26s: median TFLOP/s first 10 reps %7.2f, last second %7.2f (%zu reps), all %7.2f, max %7.2f; %zu reps "
        "in %.0f ms; validation %s\n",
        kind_name(kind), dist_name(dist), median(first_ten), median(last_second), last_second.size(), median(rates),
        *std::max_element(rates.begin(), rates.end()), reps, end_ms, verdict.ok ? "ok" : "WRONG");
}

// ---------------------------------------------------------------- part c: heuristic algorithms

void part_algos(cublasLtHandle_t lt, cublasHandle_t blas, cudaStream_t stream, Kind kind) {
    constexpr int n = 8192;
    const bool fp64 = kind == Kind::fp64;
    const std::size_t bytes = std::size_t(n) * n * kind_bytes(kind);
    DeviceMemory a(bytes), b(bytes), d(bytes), workspace(std::size_t(64) << 20);
    constexpr std::uint64_t seed_a = 31, seed_b = 32;
    fill(a, kind, seed_a);
    fill(b, kind, seed_b);
    const cudaDataType_t type = kind_type(kind);
    const cublasComputeType_t compute = fp64 ? CUBLAS_COMPUTE_64F : CUBLAS_COMPUTE_32F;
    const cudaDataType_t scale_type = fp64 ? CUDA_R_64F : CUDA_R_32F;
    const double alpha64 = 1.0, beta64 = 0.0;
    const float alpha32 = 1.0f, beta32 = 0.0f;
    const void* alpha = fp64 ? static_cast<const void*>(&alpha64) : &alpha32;
    const void* beta = fp64 ? static_cast<const void*>(&beta64) : &beta32;
    // Accumulation (2k u of the compute type) plus the output's rounding.
    const double tolerance = fp64 ? 2.0 * n * std::ldexp(1.0, -53) : 2.0 * n * std::ldexp(1.0, -24);
    const double rounding = kind == Kind::bf16 ? std::ldexp(1.0, -8) : kind == Kind::fp16 ? std::ldexp(1.0, -11) : 0.0;

    for (const bool transposed : {true, false}) {
        const char* layout = transposed ? "TN" : "NN";
        SAY("\n#### part algos %s %s %d^3 (%s)\n", kind_name(kind), layout, n, utc_now().c_str());
        const Samples samples = make_samples(n, kind, transposed, seed_a, seed_b, 32);
        const cublasOperation_t op_a = transposed ? CUBLAS_OP_T : CUBLAS_OP_N, none = CUBLAS_OP_N;

        const auto gemm_ex = [&] {
            return cublasGemmEx(blas, op_a, CUBLAS_OP_N, n, n, n, alpha, a.get(), type, n, b.get(), type, n, beta, d.get(),
                                type, n, compute, CUBLAS_GEMM_DEFAULT);
        };
        SHAKEDOWN_CUDA(cudaMemsetAsync(d.get(), 0xFF, d.bytes(), stream));
        const cublasStatus_t ex_status = gemm_ex();
        SHAKEDOWN_CUDA(cudaStreamSynchronize(stream));
        if (ex_status == CUBLAS_STATUS_SUCCESS) {
            const Verdict verdict = validate(d.get(), kind, samples, 1.0, tolerance, rounding);
            const auto ms = time_each_ms([&] { gemm_ex(); }, 3, 10, stream);
            SAY("   cublasGemmEx        : %8.1f TFLOP/s (median of 10; min..max %.1f..%.1f), validation %s (worst %.3g)\n",
                tflops(n, median(ms)), tflops(n, *std::max_element(ms.begin(), ms.end())),
                tflops(n, *std::min_element(ms.begin(), ms.end())), verdict.ok ? "ok" : "WRONG", verdict.worst);
        } else {
            SAY("   cublasGemmEx: %s\n", status_name(ex_status));
        }

        LtObjects objects;
        cublasLtMatmulDescCreate(&objects.desc, compute, scale_type);
        cublasLtMatmulDescSetAttribute(objects.desc, CUBLASLT_MATMUL_DESC_TRANSA, &op_a, sizeof op_a);
        cublasLtMatmulDescSetAttribute(objects.desc, CUBLASLT_MATMUL_DESC_TRANSB, &none, sizeof none);
        for (auto* layout_out : {&objects.a, &objects.b, &objects.c}) cublasLtMatrixLayoutCreate(layout_out, type, n, n, n);
        cublasLtMatmulPreferenceCreate(&objects.preference);
        const std::size_t workspace_bytes = workspace.bytes();
        cublasLtMatmulPreferenceSetAttribute(objects.preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace_bytes,
                                             sizeof workspace_bytes);
        constexpr int requested = 8;
        cublasLtMatmulHeuristicResult_t results[requested] = {};
        int returned = 0;
        const cublasStatus_t status = cublasLtMatmulAlgoGetHeuristic(lt, objects.desc, objects.a, objects.b, objects.c, objects.c,
                                                                     objects.preference, requested, results, &returned);
        SAY("   cuBLASLt heuristic (workspace 64 MiB): %s, %d of %d\n", status_name(status), returned, requested);
        double first = 0.0, best = 0.0;
        int best_index = -1;
        for (int index = 0; index < returned; ++index) {
            const auto launch = [&] {
                return cublasLtMatmul(lt, objects.desc, alpha, a.get(), objects.a, b.get(), objects.b, beta, d.get(),
                                      objects.c, d.get(), objects.c, &results[index].algo, workspace.get(),
                                      workspace.bytes(), stream);
            };
            SHAKEDOWN_CUDA(cudaMemsetAsync(d.get(), 0xFF, d.bytes(), stream));
            const cublasStatus_t ran = launch();
            SHAKEDOWN_CUDA(cudaStreamSynchronize(stream));
            if (ran != CUBLAS_STATUS_SUCCESS) {
                SAY("   algo %d: %s: matmul %s\n", index, describe_algo(results[index].algo).c_str(), status_name(ran));
                continue;
            }
            const Verdict verdict = validate(d.get(), kind, samples, 1.0, tolerance, rounding);
            const auto ms = time_each_ms([&] { launch(); }, 3, 10, stream);
            const double rate = tflops(n, median(ms));
            if (index == 0) first = rate;
            if (verdict.ok && rate > best) {
                best = rate;
                best_index = index;
            }
            SAY("   algo %d: %8.1f TFLOP/s (median of 10), ws %zu, waves %.2f, %s, validation %s (worst %.3g)\n", index, rate,
                results[index].workspaceSize, results[index].wavesCount, describe_algo(results[index].algo).c_str(),
                verdict.ok ? "ok" : "WRONG", verdict.worst);
        }
        SAY("## algos %s %s: heuristic's first %.1f TFLOP/s, best valid algo %d %.1f TFLOP/s (first/best %.3f)\n",
            kind_name(kind), layout, first, best_index, best, best > 0 ? first / best : 0.0);
    }
}

int run(int argc, char** argv) {
    bool want_fp8 = false, want_timeline = false, want_algos = false, want_data = false;
    int idle_s = 20, timeline_reps = 150, device = 0, data_idle_s = 4;
    double data_seconds = 4.0;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "fp8") want_fp8 = true;
        else if (arg == "timeline") want_timeline = true;
        else if (arg == "algos") want_algos = true;
        else if (arg == "data") want_data = true;
        else if (arg == "--data-idle" && i + 1 < argc) data_idle_s = std::max(0, std::atoi(argv[++i]));
        else if (arg == "--data-seconds" && i + 1 < argc) data_seconds = std::max(1.0, std::atof(argv[++i]));
        else if (arg == "--idle" && i + 1 < argc) idle_s = std::atoi(argv[++i]);
        else if (arg == "--timeline-reps" && i + 1 < argc) timeline_reps = std::max(1, std::atoi(argv[++i]));
        else if (arg == "--device" && i + 1 < argc) device = std::atoi(argv[++i]);
        else {
            std::printf("usage: %s [fp8] [timeline] [algos] [data] [--idle S] [--timeline-reps N] [--data-idle S] "
                        "[--data-seconds S] [--device D]\n",
                        argv[0]);
            return 2;
        }
    }
    if (!want_fp8 && !want_timeline && !want_algos && !want_data) want_fp8 = want_timeline = want_algos = true;

    SHAKEDOWN_CUDA(cudaSetDevice(device));
    cudaDeviceProp properties{};
    SHAKEDOWN_CUDA(cudaGetDeviceProperties(&properties, device));
    int runtime = 0, driver = 0, clock_khz = 0, memory_clock_khz = 0;
    cudaRuntimeGetVersion(&runtime);
    cudaDriverGetVersion(&driver);
    cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, device);
    cudaDeviceGetAttribute(&memory_clock_khz, cudaDevAttrMemoryClockRate, device);
    SAY("gemm_probe %s: device %d %s, cc %d.%d, %d SMs, max SM clock %d MHz, memory clock %d MHz\n", utc_now().c_str(), device,
        properties.name, properties.major, properties.minor, properties.multiProcessorCount, clock_khz / 1000,
        memory_clock_khz / 1000);
    SAY("versions: cuBLASLt runtime %zu (built against cuBLAS headers %d), cuBLASLt's cudart %zu, CUDA runtime %d, driver %d\n",
        cublasLtGetVersion(), CUBLAS_VERSION, cublasLtGetCudartVersion(), runtime, driver);
    const char* log_level = std::getenv("CUBLASLT_LOG_LEVEL");
    const char* log_mask = std::getenv("CUBLASLT_LOG_MASK");
    SAY("CUBLASLT_LOG_LEVEL=%s CUBLASLT_LOG_MASK=%s\n", log_level ? log_level : "(unset)", log_mask ? log_mask : "(unset)");

    const gpu::CudaStream stream_owner;
    const gpu::CublasLtHandle lt_owner;
    const gpu::CublasHandle blas_owner;
    const cudaStream_t stream = stream_owner.get();
    const cublasLtHandle_t lt = lt_owner.get();
    const cublasHandle_t blas = blas_owner.get();
    SHAKEDOWN_CUBLAS(cublasSetStream(blas, stream));

    const auto started = std::chrono::steady_clock::now();
    if (want_fp8) part_fp8(lt, stream);
    if (want_timeline) {
        part_timeline(blas, stream, Kind::fp64, timeline_reps, idle_s);
        part_timeline(blas, stream, Kind::fp16, timeline_reps, idle_s);
    }
    if (want_algos)
        for (Kind kind : {Kind::fp16, Kind::bf16, Kind::fp64}) part_algos(lt, blas, stream, kind);
    if (want_data)
        for (Kind kind : {Kind::fp64, Kind::fp16})
            for (Dist dist : {Dist::uniform_pm1, Dist::uniform_01, Dist::small_ints, Dist::ones, Dist::eighths})
                part_data(blas, stream, kind, dist, data_seconds, data_idle_s);

    SAY("\nprobe done %s after %.1f s: %s\n", utc_now().c_str(),
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count(),
        cudaGetErrorString(cudaGetLastError()));
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    try {
        return run(argc, argv);
    } catch (const std::exception& error) {  // a GpuError names the failed call, file and line
        SAY("FATAL: %s\n", error.what());
        return 1;
    }
}
