// One rung of the GEMM ladder on a CUDA GPU. fp64..fp16 go through cublasGemmEx (the call
// the reference figures were measured with); fp8 needs cuBLASLt (scale pointers, TN), tried
// set-up by set-up and algorithm by algorithm (kernels/ladder/fp8_setups.hpp says why).
// Every rung computes C = A^T B with A stored k x m and B stored k x n (both "k-major"),
// so each entry is a dot product of two contiguous columns, on the GPU and in the host
// reference alike.
#include "kernels/ladder/ladder_backend.hpp"

#include "kernels/common/matrix_fill.hpp"
#include "kernels/cuda/cublas_handle.hpp"
#include "kernels/cuda/cuda_raii.hpp"
#include "kernels/ladder/fp8_setups.hpp"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <fmt/format.h>

#include <array>
#include <cmath>
#include <cstring>
#include <functional>
#include <memory>

namespace shakedown::kernels {
namespace {

constexpr std::uint64_t seed_a = 101;
constexpr std::uint64_t seed_b = 202;

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
        input.values[index] = types.store_input(random_entry(seed, index), input.bytes.data() + index * types.input_bytes);
    return input;
}

// RAII owners of the cuBLASLt descriptors the fp8 path needs.
template <typename Handle, cublasStatus_t (*Destroy)(Handle)>
class LtObject {
public:
    LtObject() = default;
    ~LtObject() {
        if (handle_) Destroy(handle_);
    }
    LtObject(const LtObject&) = delete;
    LtObject& operator=(const LtObject&) = delete;
    Handle* out() { return &handle_; }
    Handle get() const { return handle_; }

private:
    Handle handle_ = nullptr;
};
using MatmulDesc = LtObject<cublasLtMatmulDesc_t, cublasLtMatmulDescDestroy>;
using MatrixLayout = LtObject<cublasLtMatrixLayout_t, cublasLtMatrixLayoutDestroy>;
using MatmulPreference = LtObject<cublasLtMatmulPreference_t, cublasLtMatmulPreferenceDestroy>;

std::string describe_algorithm(const cublasLtMatmulAlgo_t& algo) {
    int id = -1;
    std::uint32_t tile = 0, stages = 0;
    std::int32_t split_k = 0;
    std::uint16_t cluster = 0;
    std::size_t written = 0;
    cublasLtMatmulAlgoConfigGetAttribute(&algo, CUBLASLT_ALGO_CONFIG_ID, &id, sizeof id, &written);
    cublasLtMatmulAlgoConfigGetAttribute(&algo, CUBLASLT_ALGO_CONFIG_TILE_ID, &tile, sizeof tile, &written);
    cublasLtMatmulAlgoConfigGetAttribute(&algo, CUBLASLT_ALGO_CONFIG_STAGES_ID, &stages, sizeof stages, &written);
    cublasLtMatmulAlgoConfigGetAttribute(&algo, CUBLASLT_ALGO_CONFIG_SPLITK_NUM, &split_k, sizeof split_k, &written);
    cublasLtMatmulAlgoConfigGetAttribute(&algo, CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID, &cluster, sizeof cluster, &written);
    return fmt::format("id {} tile {} stages {} split-k {} cluster {}", id, tile, stages, split_k, cluster);
}

// Answers that mean "not this set-up / algorithm" (try the next one) rather than a broken GPU.
bool is_refusal(cublasStatus_t status) {
    return status == CUBLAS_STATUS_NOT_SUPPORTED || status == CUBLAS_STATUS_INVALID_VALUE ||
           status == CUBLAS_STATUS_ARCH_MISMATCH;
}

// FP8 e4m3 GEMM through cuBLASLt: the first set-up of fp8_setups, and within it the first
// algorithm in the heuristic's order, that multiplies. Throws RungNotSupported with every
// refusal when none does.
class Fp8Matmul {
public:
    Fp8Matmul(std::size_t n, const void* a, const void* b, void* d, cudaStream_t stream)
        : stream_(stream), a_data_(a), b_data_(b), d_data_(d), workspace_(fp8_max_workspace_bytes), scales_(2) {
        const float ones[2] = {1.0f, 1.0f};
        cuda_check(cudaMemcpy(scales_.get(), ones, sizeof ones, cudaMemcpyHostToDevice), "cudaMemcpy(scales)");
        std::vector<Fp8Attempt> attempts;
        for (std::size_t index = 0; index < fp8_setups.size(); ++index) {
            auto plan = make_plan(fp8_setups[index], n);
            constexpr int requested = 16;
            std::array<cublasLtMatmulHeuristicResult_t, requested> offered{};
            int count = 0;
            const cublasStatus_t heuristic =
                cublasLtMatmulAlgoGetHeuristic(lt_.get(), plan->desc.get(), plan->a.get(), plan->b.get(), plan->c.get(),
                                               plan->d.get(), plan->preference.get(), requested, offered.data(), &count);
            if (heuristic != CUBLAS_STATUS_SUCCESS || count == 0) {
                if (heuristic != CUBLAS_STATUS_SUCCESS && !is_refusal(heuristic))
                    cublas_check(heuristic, "cublasLtMatmulAlgoGetHeuristic(fp8)");
                attempts.push_back({index, -1, "", heuristic != CUBLAS_STATUS_SUCCESS ? cublasGetStatusName(heuristic)
                                                                                      : "no algorithm offered"});
                continue;
            }
            for (int choice = 0; choice < count; ++choice) {
                Fp8Attempt attempt{index, choice, describe_algorithm(offered[choice].algo), ""};
                if (offered[choice].state != CUBLAS_STATUS_SUCCESS) {  // offered but marked unusable
                    attempt.status = cublasGetStatusName(offered[choice].state);
                    attempts.push_back(std::move(attempt));
                    continue;
                }
                const cublasStatus_t status = launch(*plan, offered[choice].algo);
                cuda_check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize(fp8 trial)");
                if (status == CUBLAS_STATUS_SUCCESS) {
                    setup_ = index;
                    algorithm_ = offered[choice].algo;
                    plan_ = std::move(plan);
                    chosen_ = fmt::format("heuristic choice {} of {}: {}", choice, count, attempt.algorithm);
                    refused_ = summarize_fp8_refusals(attempts);
                    return;
                }
                if (!is_refusal(status)) cublas_check(status, "cublasLtMatmul(fp8)");
                attempt.status = cublasGetStatusName(status);
                attempts.push_back(std::move(attempt));
            }
        }
        throw RungNotSupported("cuBLASLt ran no fp8 e4m3 GEMM (TN, compute 32F, A/B scales): " +
                               summarize_fp8_refusals(attempts));
    }

    void run() const { cublas_check(launch(*plan_, algorithm_), "cublasLtMatmul(fp8)"); }
    Fp8Output output() const { return fp8_setups[setup_].output; }

    std::vector<std::pair<std::string, std::string>> details() const {
        std::vector<std::pair<std::string, std::string>> out = {{"setup", std::string(fp8_setups[setup_].name)},
                                                                {"algorithm", chosen_}};
        if (!refused_.empty()) out.emplace_back("refused_before", refused_);
        return out;
    }

private:
    struct Plan {
        MatmulDesc desc;
        MatrixLayout a, b, c, d;
        MatmulPreference preference;
        const void* c_data = nullptr;
        std::size_t workspace_bytes = 0;
    };

    std::unique_ptr<Plan> make_plan(const Fp8Setup& setup, std::size_t n) const {
        auto plan = std::make_unique<Plan>();
        cublas_check(cublasLtMatmulDescCreate(plan->desc.out(), CUBLAS_COMPUTE_32F, CUDA_R_32F), "cublasLtMatmulDescCreate");
        const cublasOperation_t transpose = CUBLAS_OP_T, none = CUBLAS_OP_N;
        const std::int8_t fast_accumulation = 0;  // FP32 promotion on (the default, stated): torch's default too
        const float* a_scale = scales_.get();
        const float* b_scale = scales_.get() + 1;
        const cublasLtMatmulDesc_t desc = plan->desc.get();
        cublas_check(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSA, &transpose, sizeof transpose), "TRANSA");
        cublas_check(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSB, &none, sizeof none), "TRANSB");
        cublas_check(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_FAST_ACCUM, &fast_accumulation,
                                                    sizeof fast_accumulation),
                     "FAST_ACCUM");
        cublas_check(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &a_scale, sizeof a_scale), "A_SCALE");
        cublas_check(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &b_scale, sizeof b_scale), "B_SCALE");
        const auto rows = static_cast<std::uint64_t>(n);
        const auto ld = static_cast<std::int64_t>(n);
        const cudaDataType output = setup.output == Fp8Output::bf16 ? CUDA_R_16BF : CUDA_R_32F;
        cublas_check(cublasLtMatrixLayoutCreate(plan->a.out(), CUDA_R_8F_E4M3, rows, rows, ld), "layout A");
        cublas_check(cublasLtMatrixLayoutCreate(plan->b.out(), CUDA_R_8F_E4M3, rows, rows, ld), "layout B");
        cublas_check(cublasLtMatrixLayoutCreate(plan->c.out(), output, rows, rows, ld), "layout C");
        cublas_check(cublasLtMatrixLayoutCreate(plan->d.out(), output, rows, rows, ld), "layout D");
        cublas_check(cublasLtMatmulPreferenceCreate(plan->preference.out()), "cublasLtMatmulPreferenceCreate");
        plan->workspace_bytes = setup.workspace_bytes;
        cublas_check(cublasLtMatmulPreferenceSetAttribute(plan->preference.get(), CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                                          &plan->workspace_bytes, sizeof plan->workspace_bytes),
                     "workspace preference");
        plan->c_data = setup.c_is_d ? d_data_ : nullptr;
        return plan;
    }

    cublasStatus_t launch(const Plan& plan, const cublasLtMatmulAlgo_t& algorithm) const {
        const float alpha = 1.0f, beta = 0.0f;
        return cublasLtMatmul(lt_.get(), plan.desc.get(), &alpha, a_data_, plan.a.get(), b_data_, plan.b.get(), &beta,
                              plan.c_data, plan.c.get(), d_data_, plan.d.get(), &algorithm, workspace_.get(),
                              plan.workspace_bytes, stream_);
    }

    cudaStream_t stream_;
    const void* a_data_;
    const void* b_data_;
    void* d_data_;
    CublasLtHandle lt_;
    DeviceBuffer<std::byte> workspace_;
    DeviceBuffer<float> scales_;
    std::unique_ptr<Plan> plan_;
    std::size_t setup_ = 0;
    cublasLtMatmulAlgo_t algorithm_{};
    std::string chosen_;
    std::string refused_;
};

// Sampled (row, column) positions: the corners and hashed positions in between.
std::vector<std::pair<std::size_t, std::size_t>> sample_positions(std::size_t n, std::size_t count) {
    std::vector<std::pair<std::size_t, std::size_t>> positions = {{0, 0}, {n - 1, n - 1}};
    for (std::uint64_t s = 0; positions.size() < std::max<std::size_t>(count, 2); ++s)
        positions.emplace_back(mix64(2 * s) % n, mix64(2 * s + 1) % n);
    return positions;
}

}  // namespace

LadderRunResult run_ladder_rung(LadderPrecision precision, const LadderRunOptions& options, int device) {
    DeviceSelection select(device);
    RungTypes types = types_of(precision);
    const std::size_t n = options.n;
    const Input a = make_input(seed_a, n, n, types);
    const Input b = make_input(seed_b, n, n, types);

    // fp8's output type is known once a set-up runs: room for the widest (fp32).
    const std::size_t output_room = precision == LadderPrecision::fp8 ? sizeof(float) : types.output_bytes;
    DeviceBuffer<std::byte> a_device(a.bytes.size()), b_device(b.bytes.size()), c_device(n * n * output_room);
    cuda_check(cudaMemcpy(a_device.get(), a.bytes.data(), a.bytes.size(), cudaMemcpyHostToDevice), "cudaMemcpy(A)");
    cuda_check(cudaMemcpy(b_device.get(), b.bytes.data(), b.bytes.size(), cudaMemcpyHostToDevice), "cudaMemcpy(B)");

    CudaStream stream;
    CublasHandle handle;
    cublas_check(cublasSetStream(handle.get(), stream.get()), "cublasSetStream");
    std::function<void()> multiply;
    std::unique_ptr<Fp8Matmul> fp8;
    const double alpha64 = 1.0, beta64 = 0.0;
    const float alpha32 = 1.0f, beta32 = 0.0f;
    const int dim = static_cast<int>(n);
    LadderRunResult result;
    if (precision == LadderPrecision::fp8) {
        fp8 = std::make_unique<Fp8Matmul>(n, a_device.get(), b_device.get(), c_device.get(), stream.get());
        if (fp8->output() == Fp8Output::fp32) {
            types.output = CUDA_R_32F;
            types.output_bytes = 4;
            types.load_output = load_fp32;
            types.store_output = put_fp32;
        }
        result.details = fp8->details();
        multiply = [&] { fp8->run(); };
    } else {
        const void* alpha = types.double_scalars ? static_cast<const void*>(&alpha64) : &alpha32;
        const void* beta = types.double_scalars ? static_cast<const void*>(&beta64) : &beta32;
        multiply = [&, alpha, beta] {
            cublas_check(cublasGemmEx(handle.get(), CUBLAS_OP_T, CUBLAS_OP_N, dim, dim, dim, alpha, a_device.get(),
                                      types.input, dim, b_device.get(), types.input, dim, beta, c_device.get(),
                                      types.output, dim, types.compute, CUBLAS_GEMM_DEFAULT),
                         "cublasGemmEx");
        };
    }

    for (std::int64_t rep = 0; rep < options.warmup; ++rep) multiply();
    stream.synchronize();
    EventTimer timer(stream.get());
    for (std::int64_t rep = 0; rep < options.repetitions; ++rep) {
        timer.start();
        multiply();
        result.seconds.push_back(timer.stop_seconds());
    }

    const auto positions = sample_positions(n, options.samples);
    if (options.corrupt) {  // planted: the first sampled entry after the corners goes wrong
        const auto [i, j] = positions[2];
        std::vector<std::byte> element(types.output_bytes);
        std::byte* where = c_device.get() + (i + j * n) * types.output_bytes;
        cuda_check(cudaMemcpy(element.data(), where, element.size(), cudaMemcpyDeviceToHost), "cudaMemcpy");
        types.store_output(-2.0 * types.load_output(element.data()) - 1.0, element.data());
        cuda_check(cudaMemcpy(where, element.data(), element.size(), cudaMemcpyHostToDevice), "cudaMemcpy");
    }
    std::vector<std::byte> c(c_device.size());
    cuda_check(cudaMemcpy(c.data(), c_device.get(), c.size(), cudaMemcpyDeviceToHost), "cudaMemcpy(C)");

    const double tolerance = ladder_tolerance(precision, n);
    std::size_t wrong = 0;
    for (const auto& [i, j] : positions) {
        double sum = 0.0, compensation = 0.0, magnitude = 0.0;
        for (std::size_t p = 0; p < n; ++p) {  // Neumaier-compensated FP64 dot product
            const double term = a.values[p + i * n] * b.values[p + j * n];
            const double t = sum + term;
            compensation += std::abs(sum) >= std::abs(term) ? (sum - t) + term : (term - t) + sum;
            sum = t;
            magnitude += std::abs(term);
        }
        const double expected = sum + compensation;
        const double value = types.load_output(c.data() + (i + j * n) * types.output_bytes);
        const double error = std::abs(value - expected) / magnitude;
        result.worst_error = std::max(result.worst_error, std::isnan(error) ? INFINITY : error / tolerance);
        if (!(error <= tolerance)) {
            if (wrong < 5)
                result.failure += fmt::format("C({}, {}) = {:.9g} (expected {:.9g}, error {:.3g} of sum|ab| > tolerance {:.3g}); ",
                                              i, j, value, expected, error, tolerance);
            ++wrong;
        }
    }
    if (wrong > 0) result.failure += fmt::format("{} of {} sampled entries wrong", wrong, positions.size());
    return result;
}

}  // namespace shakedown::kernels
