// attention_probe: the cuDNN fused attention wrapper the transformer training step uses
// (kernels/train/cudnn_attention.hpp), checked and timed on the GPU host; not one of shakedown's
// tests. libcudnn is loaded at run time: point LD_LIBRARY_PATH (or SHAKEDOWN_CUDNN_LIBRARY, a
// full path) at the cuDNN inside PyTorch's wheel (.../site-packages/nvidia/cudnn/lib).
//   correctness  batch 2, 8 query heads sharing 2 K/V heads, sequence 256, head_dim 128; bf16
//                inputs ~ N(0,1) * 0.5 from a fixed seed; forward and backward against an fp32
//                reference computed by the plain kernels below (causal softmax(Q K^T / sqrt(d)) V
//                and its gradients, dK and dV summed over each K/V head's query heads). The
//                gradient buffer is poisoned with NaN first, so a column block cuDNN does not
//                write shows as an error. Max abs error and relative L2 error per output; the
//                probe fails (exit 1) when a relative L2 error exceeds 2e-2. The same check then
//                runs on plain multi-head attention (4 heads, sequence 192, head_dim 64) and on
//                one K/V head for 6 query heads at sequence 100 (no multiple of a tile).
//   speed        batch 1, 32 heads, 8 K/V heads, sequence 4096, head_dim 128 (a Llama-3-8B layer):
//                median of 20 forward and 20 backward calls after 3 warm-ups, each timed by its
//                own event pair; TFLOP/s from the causal FLOP (forward 2*b*h*s*s*d, backward
//                2.5 times that).
// Exit 3 (with cuDNN's reason) when the wrapper cannot run here; CUDNN_LOGERR_DBG=1 and
// CUDNN_LOGDEST_DBG=stderr make cuDNN say more about a refused graph.
// Build (a CUDA build of shakedown): cmake --build build --target shakedown_attention_probe
// Run:   build/bench/gpu/shakedown_attention_probe   (bench/gpu/make-bundle.sh packs it)
#include "bench/gpu/probe_support.hpp"
#include "gpu/cuda_owners.hpp"
#include "kernels/train/cudnn_attention.hpp"

#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace {

namespace gpu = shakedown::gpu;
namespace probe = shakedown::probe;
using shakedown::kernels::train::AttentionShape;
using shakedown::kernels::train::CudnnAttention;

// ---------------------------------------------------------------- the fp32 reference

// Where each head's elements lie: the wrapper's layouts (qkv rows of (h + 2g) * d, out rows of h * d).
struct Geometry {
    int b, h, g, s, d;
    __host__ __device__ int group_size() const { return h / g; }
    __host__ __device__ std::size_t qkv_row() const { return static_cast<std::size_t>(h + 2 * g) * d; }
    __host__ __device__ std::size_t q_index(int bi, int hi, int i, int e) const {
        return (static_cast<std::size_t>(bi) * s + i) * qkv_row() + static_cast<std::size_t>(hi) * d + e;
    }
    __host__ __device__ std::size_t k_index(int bi, int gi, int j, int e) const {
        return (static_cast<std::size_t>(bi) * s + j) * qkv_row() + static_cast<std::size_t>(h + gi) * d + e;
    }
    __host__ __device__ std::size_t v_index(int bi, int gi, int j, int e) const {
        return (static_cast<std::size_t>(bi) * s + j) * qkv_row() + static_cast<std::size_t>(h + g + gi) * d + e;
    }
    __host__ __device__ std::size_t out_index(int bi, int hi, int i, int e) const {
        return (static_cast<std::size_t>(bi) * s + i) * h * d + static_cast<std::size_t>(hi) * d + e;
    }
    __host__ __device__ std::size_t score_index(int bi, int hi, int i, int j) const {
        return ((static_cast<std::size_t>(bi) * h + hi) * s + i) * s + j;
    }
    __host__ __device__ std::size_t row_index(int bi, int hi, int i) const {
        return (static_cast<std::size_t>(bi) * h + hi) * s + i;
    }
};

__device__ float load(const __nv_bfloat16* data, std::size_t index) { return __bfloat162float(data[index]); }

// One block per (batch, head, query): the causal row of scaled scores, its log-sum-exp and the
// probabilities (zero above the diagonal).
__global__ void reference_probabilities(Geometry x, const __nv_bfloat16* qkv, float scale, float* probabilities,
                                        float* lse) {
    extern __shared__ float row[];
    const int i = blockIdx.x % x.s, hi = (blockIdx.x / x.s) % x.h, bi = blockIdx.x / (x.s * x.h);
    const int gi = hi / x.group_size();
    for (int j = threadIdx.x; j <= i; j += blockDim.x) {
        float dot = 0.0f;
        for (int e = 0; e < x.d; ++e) dot += load(qkv, x.q_index(bi, hi, i, e)) * load(qkv, x.k_index(bi, gi, j, e));
        row[j] = dot * scale;
    }
    __syncthreads();
    __shared__ float row_max, row_sum;
    if (threadIdx.x == 0) {
        float m = -INFINITY;
        for (int j = 0; j <= i; ++j) m = fmaxf(m, row[j]);
        float sum = 0.0f;
        for (int j = 0; j <= i; ++j) sum += expf(row[j] - m);
        row_max = m;
        row_sum = sum;
        lse[x.row_index(bi, hi, i)] = m + logf(sum);
    }
    __syncthreads();
    for (int j = threadIdx.x; j < x.s; j += blockDim.x)
        probabilities[x.score_index(bi, hi, i, j)] = j <= i ? expf(row[j] - row_max) / row_sum : 0.0f;
}

// O = P V, one thread per output element.
__global__ void reference_output(Geometry x, const __nv_bfloat16* qkv, const float* probabilities, float* out) {
    const std::size_t n = static_cast<std::size_t>(x.b) * x.h * x.s * x.d;
    const std::size_t t = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
    if (t >= n) return;
    const int e = t % x.d, i = (t / x.d) % x.s, hi = (t / (static_cast<std::size_t>(x.d) * x.s)) % x.h,
              bi = t / (static_cast<std::size_t>(x.d) * x.s * x.h);
    const int gi = hi / x.group_size();
    float sum = 0.0f;
    for (int j = 0; j <= i; ++j) sum += probabilities[x.score_index(bi, hi, i, j)] * load(qkv, x.v_index(bi, gi, j, e));
    out[x.out_index(bi, hi, i, e)] = sum;
}

// dS = P (dP - rowsum(dO * O)) with dP = dO V^T, one thread per score.
__global__ void reference_score_gradient(Geometry x, const __nv_bfloat16* qkv, const __nv_bfloat16* d_out, const float* out,
                                         const float* probabilities, float* d_scores) {
    const std::size_t n = static_cast<std::size_t>(x.b) * x.h * x.s * x.s;
    const std::size_t t = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
    if (t >= n) return;
    const int j = t % x.s, i = (t / x.s) % x.s, hi = (t / (static_cast<std::size_t>(x.s) * x.s)) % x.h,
              bi = t / (static_cast<std::size_t>(x.s) * x.s * x.h);
    const int gi = hi / x.group_size();
    if (j > i) {
        d_scores[t] = 0.0f;
        return;
    }
    float d_p = 0.0f, row_dot = 0.0f;
    for (int e = 0; e < x.d; ++e) {
        const float grad = load(d_out, x.out_index(bi, hi, i, e));
        d_p += grad * load(qkv, x.v_index(bi, gi, j, e));
        row_dot += grad * out[x.out_index(bi, hi, i, e)];
    }
    d_scores[t] = probabilities[t] * (d_p - row_dot);
}

// dQ = scale * dS K, one thread per element, written into dQ's columns of a float d_qkv.
__global__ void reference_query_gradient(Geometry x, const __nv_bfloat16* qkv, const float* d_scores, float scale,
                                         float* d_qkv) {
    const std::size_t n = static_cast<std::size_t>(x.b) * x.h * x.s * x.d;
    const std::size_t t = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
    if (t >= n) return;
    const int e = t % x.d, i = (t / x.d) % x.s, hi = (t / (static_cast<std::size_t>(x.d) * x.s)) % x.h,
              bi = t / (static_cast<std::size_t>(x.d) * x.s * x.h);
    const int gi = hi / x.group_size();
    float sum = 0.0f;
    for (int j = 0; j <= i; ++j) sum += d_scores[x.score_index(bi, hi, i, j)] * load(qkv, x.k_index(bi, gi, j, e));
    d_qkv[x.q_index(bi, hi, i, e)] = sum * scale;
}

// dK = scale * dS^T Q and dV = P^T dO, each summed over the query heads of the K/V head.
__global__ void reference_key_value_gradient(Geometry x, const __nv_bfloat16* qkv, const __nv_bfloat16* d_out,
                                             const float* probabilities, const float* d_scores, float scale, float* d_qkv) {
    const std::size_t n = static_cast<std::size_t>(x.b) * x.g * x.s * x.d;
    const std::size_t t = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
    if (t >= n) return;
    const int e = t % x.d, j = (t / x.d) % x.s, gi = (t / (static_cast<std::size_t>(x.d) * x.s)) % x.g,
              bi = t / (static_cast<std::size_t>(x.d) * x.s * x.g);
    float d_k = 0.0f, d_v = 0.0f;
    for (int hi = gi * x.group_size(); hi < (gi + 1) * x.group_size(); ++hi)
        for (int i = j; i < x.s; ++i) {
            d_k += d_scores[x.score_index(bi, hi, i, j)] * load(qkv, x.q_index(bi, hi, i, e));
            d_v += probabilities[x.score_index(bi, hi, i, j)] * load(d_out, x.out_index(bi, hi, i, e));
        }
    d_qkv[x.k_index(bi, gi, j, e)] = d_k * scale;
    d_qkv[x.v_index(bi, gi, j, e)] = d_v;
}

unsigned blocks_for(std::size_t n, unsigned threads) { return static_cast<unsigned>((n + threads - 1) / threads); }

// ---------------------------------------------------------------- comparison

struct Error {
    double max_abs = 0.0;
    double relative_l2 = 0.0;
};

// Over the elements `select` accepts (a column block of a row-major buffer, or all).
template <typename Actual, typename Select>
Error compare(const std::vector<Actual>& actual, const std::vector<float>& reference, Select select) {
    double difference = 0.0, norm = 0.0, max_abs = 0.0;
    for (std::size_t k = 0; k < reference.size(); ++k) {
        if (!select(k)) continue;
        const double a = static_cast<double>(static_cast<float>(actual[k])), r = reference[k];
        const double delta = std::fabs(a - r);
        // A NaN (a block never written) must not vanish in max(): carry it through.
        max_abs = (delta > max_abs || std::isnan(delta)) ? delta : max_abs;
        difference += (a - r) * (a - r);
        norm += r * r;
    }
    return Error{max_abs, std::sqrt(difference / norm)};
}

bool report(const char* name, const Error& error, double tolerance) {
    const bool pass = error.relative_l2 <= tolerance;  // false for NaN
    std::printf("  %-6s max abs error %.3e  relative L2 error %.3e  %s\n", name, error.max_abs, error.relative_l2,
                pass ? "ok" : "FAIL");
    return pass;
}

std::vector<__nv_bfloat16> random_bf16(std::size_t n, std::mt19937_64& generator) {
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::vector<__nv_bfloat16> values(n);
    for (auto& value : values) value = __float2bfloat16(normal(generator) * 0.5f);
    return values;
}

template <typename T>
std::vector<T> to_host(const gpu::DeviceBuffer<T>& buffer) {
    std::vector<T> host(buffer.size());
    SHAKEDOWN_CUDA(cudaMemcpy(host.data(), buffer.get(), buffer.bytes(), cudaMemcpyDeviceToHost));
    return host;
}

std::unique_ptr<CudnnAttention> make_attention(const AttentionShape& shape, cudaStream_t stream) {
    std::string why_not;
    auto attention = CudnnAttention::create(shape, stream, why_not);
    if (!attention) {
        std::printf("cuDNN attention unavailable: %s\n", why_not.c_str());
        std::exit(3);
    }
    return attention;
}

// ---------------------------------------------------------------- the two parts

bool check_correctness(const gpu::CudaStream& stream, const AttentionShape& shape) {
    const Geometry x{shape.batch, shape.heads, shape.kv_heads, shape.sequence, shape.head_dim};
    const float scale = 1.0f / std::sqrt(static_cast<float>(x.d));
    const std::size_t tokens = static_cast<std::size_t>(x.b) * x.s;
    const std::size_t qkv_count = tokens * x.qkv_row(), out_count = tokens * x.h * x.d;
    const std::size_t rows = static_cast<std::size_t>(x.b) * x.h * x.s, scores = rows * x.s;

    std::mt19937_64 generator(20240611);
    const std::vector<__nv_bfloat16> qkv_host = random_bf16(qkv_count, generator);
    const std::vector<__nv_bfloat16> d_out_host = random_bf16(out_count, generator);
    gpu::DeviceBuffer<__nv_bfloat16> qkv(qkv_count), d_out(out_count), out(out_count), d_qkv(qkv_count);
    gpu::DeviceBuffer<float> stats(rows);
    SHAKEDOWN_CUDA(cudaMemcpy(qkv.get(), qkv_host.data(), qkv.bytes(), cudaMemcpyHostToDevice));
    SHAKEDOWN_CUDA(cudaMemcpy(d_out.get(), d_out_host.data(), d_out.bytes(), cudaMemcpyHostToDevice));
    SHAKEDOWN_CUDA(cudaMemset(out.get(), 0xFF, out.bytes()));      // bf16 NaN
    SHAKEDOWN_CUDA(cudaMemset(d_qkv.get(), 0xFF, d_qkv.bytes()));  // bf16 NaN
    SHAKEDOWN_CUDA(cudaMemset(stats.get(), 0xFF, stats.bytes()));  // fp32 NaN

    auto attention = make_attention(shape, stream.get());
    std::printf("%s\n", attention->description().c_str());
    attention->forward(qkv.get(), out.get(), stats.get());
    attention->backward(qkv.get(), out.get(), d_out.get(), stats.get(), d_qkv.get());
    stream.synchronize();

    gpu::DeviceBuffer<float> probabilities(scores), d_scores(scores), lse(rows), out_ref(out_count), d_qkv_ref(qkv_count);
    reference_probabilities<<<static_cast<unsigned>(rows), 256, x.s * sizeof(float)>>>(x, qkv.get(), scale,
                                                                                       probabilities.get(), lse.get());
    SHAKEDOWN_CUDA_LAUNCH("reference_probabilities");
    reference_output<<<blocks_for(out_count, 256), 256>>>(x, qkv.get(), probabilities.get(), out_ref.get());
    SHAKEDOWN_CUDA_LAUNCH("reference_output");
    reference_score_gradient<<<blocks_for(scores, 256), 256>>>(x, qkv.get(), d_out.get(), out_ref.get(), probabilities.get(),
                                                               d_scores.get());
    SHAKEDOWN_CUDA_LAUNCH("reference_score_gradient");
    SHAKEDOWN_CUDA(cudaMemset(d_qkv_ref.get(), 0, d_qkv_ref.bytes()));
    reference_query_gradient<<<blocks_for(out_count, 256), 256>>>(x, qkv.get(), d_scores.get(), scale, d_qkv_ref.get());
    SHAKEDOWN_CUDA_LAUNCH("reference_query_gradient");
    const std::size_t kv_count = static_cast<std::size_t>(x.b) * x.g * x.s * x.d;
    reference_key_value_gradient<<<blocks_for(kv_count, 128), 128>>>(x, qkv.get(), d_out.get(), probabilities.get(),
                                                                     d_scores.get(), scale, d_qkv_ref.get());
    SHAKEDOWN_CUDA_LAUNCH("reference_key_value_gradient");
    SHAKEDOWN_CUDA(cudaDeviceSynchronize());

    const auto out_got = to_host(out), d_qkv_got = to_host(d_qkv);
    const auto stats_got = to_host(stats), out_want = to_host(out_ref), lse_want = to_host(lse),
               d_qkv_want = to_host(d_qkv_ref);
    const std::size_t row = x.qkv_row(), q_end = static_cast<std::size_t>(x.h) * x.d,
                      k_end = static_cast<std::size_t>(x.h + x.g) * x.d;
    auto all = [](std::size_t) { return true; };
    auto columns = [row](std::size_t begin, std::size_t end) {
        return [row, begin, end](std::size_t k) { return k % row >= begin && k % row < end; };
    };

    const double tolerance = 2e-2;
    std::printf("correctness: batch %d, heads %d, kv_heads %d, sequence %d, head_dim %d (fp32 reference)\n", x.b, x.h, x.g,
                x.s, x.d);
    bool pass = true;
    pass &= report("O", compare(out_got, out_want, all), tolerance);
    pass &= report("stats", compare(stats_got, lse_want, all), tolerance);
    pass &= report("dQ", compare(d_qkv_got, d_qkv_want, columns(0, q_end)), tolerance);
    pass &= report("dK", compare(d_qkv_got, d_qkv_want, columns(q_end, k_end)), tolerance);
    pass &= report("dV", compare(d_qkv_got, d_qkv_want, columns(k_end, row)), tolerance);
    return pass;
}

// Values in [-0.5, 0.5) from a hash of the index: the timed shape's inputs, made on the device.
__global__ void fill_bf16(__nv_bfloat16* data, std::size_t n, std::uint64_t seed) {
    const std::size_t t = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
    if (t >= n) return;
    std::uint64_t z = (t + seed) * 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    data[t] = __float2bfloat16(static_cast<float>(z >> 40) / static_cast<float>(1ull << 24) - 0.5f);
}

template <typename Call>
double median_seconds(const gpu::CudaStream& stream, Call call) {
    for (int i = 0; i < 3; ++i) call();
    std::vector<double> seconds;
    for (int i = 0; i < 20; ++i) {
        gpu::EventTimer timer(stream.get());
        timer.start();
        call();
        seconds.push_back(timer.stop_seconds());
    }
    return probe::median(seconds);
}

void measure_speed(const gpu::CudaStream& stream) {
    const AttentionShape shape{1, 32, 8, 4096, 128};
    const Geometry x{shape.batch, shape.heads, shape.kv_heads, shape.sequence, shape.head_dim};
    const std::size_t tokens = static_cast<std::size_t>(x.b) * x.s;
    const std::size_t qkv_count = tokens * x.qkv_row(), out_count = tokens * x.h * x.d;
    gpu::DeviceBuffer<__nv_bfloat16> qkv(qkv_count), d_out(out_count), out(out_count), d_qkv(qkv_count);
    gpu::DeviceBuffer<float> stats(static_cast<std::size_t>(x.b) * x.h * x.s);
    fill_bf16<<<blocks_for(qkv_count, 256), 256, 0, stream.get()>>>(qkv.get(), qkv_count, 1);
    SHAKEDOWN_CUDA_LAUNCH("fill_bf16");
    fill_bf16<<<blocks_for(out_count, 256), 256, 0, stream.get()>>>(d_out.get(), out_count, 2);
    SHAKEDOWN_CUDA_LAUNCH("fill_bf16");

    auto attention = make_attention(shape, stream.get());
    std::printf("speed: batch %d, heads %d, kv_heads %d, sequence %d, head_dim %d, causal\n", x.b, x.h, x.g, x.s, x.d);
    std::printf("%s\n", attention->description().c_str());
    const double forward = median_seconds(stream, [&] { attention->forward(qkv.get(), out.get(), stats.get()); });
    const double backward =
        median_seconds(stream, [&] { attention->backward(qkv.get(), out.get(), d_out.get(), stats.get(), d_qkv.get()); });
    std::printf("  forward   %8.3f ms  %7.1f TFLOP/s  (median of 20)\n", forward * 1e3,
                attention->forward_flop() / forward * 1e-12);
    std::printf("  backward  %8.3f ms  %7.1f TFLOP/s  (median of 20)\n", backward * 1e3,
                attention->backward_flop() / backward * 1e-12);
}

int run() {
    int device = 0;
    SHAKEDOWN_CUDA(cudaGetDevice(&device));
    cudaDeviceProp properties{};
    SHAKEDOWN_CUDA(cudaGetDeviceProperties(&properties, device));
    std::printf("device %d: %s (sm_%d%d)\n", device, properties.name, properties.major, properties.minor);

    gpu::CudaStream stream;
    // The brief's case first; then plain multi-head attention at head_dim 64 and one K/V head
    // for all queries at a sequence that is no multiple of the engines' tiles.
    bool pass = true;
    for (const AttentionShape& shape :
         {AttentionShape{2, 8, 2, 256, 128}, AttentionShape{1, 4, 4, 192, 64}, AttentionShape{2, 6, 1, 100, 64}})
        pass &= check_correctness(stream, shape);
    measure_speed(stream);
    if (!pass) std::printf("FAILED: a relative L2 error exceeds 2e-2\n");
    return pass ? 0 : 1;
}

}  // namespace

int main() {
    try {
        return run();
    } catch (const std::exception& error) {  // a GpuError / CudnnError names the failed call, file and line
        std::printf("FAILED: %s\n", error.what());
        return 1;
    }
}
