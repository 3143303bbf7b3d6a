// The GPU training step's own kernels (train_cuda_kernels.hpp). Row-wise work (RMSNorm, the
// softmax) takes one block per row and reduces in fp32 through shared memory; elementwise work
// is grid-stride. Built with --expt-relaxed-constexpr: the starting values and the hash come
// from the constexpr functions the host uses (train_init.hpp, core/counter_hash.hpp).
#include "kernels/train/train_cuda_kernels.hpp"
#include "kernels/train/train_init.hpp"

#include "core/counter_hash.hpp"
#include "gpu/cuda_check.hpp"

#include <cfloat>

namespace shakedown::kernels::train::cuda {
namespace {

constexpr int row_threads = 256;
constexpr int elementwise_threads = 256;

unsigned elementwise_blocks(std::size_t count) {
    const std::size_t blocks = (count + elementwise_threads - 1) / elementwise_threads;
    return static_cast<unsigned>(blocks < 65535 * 32 ? (blocks == 0 ? 1 : blocks) : 65535 * 32);
}

// Sum over the block of one float per thread; every thread gets the total.
__device__ float block_sum(float value, float* shared) {
    for (int offset = 16; offset > 0; offset /= 2) value += __shfl_xor_sync(0xffffffffu, value, offset);
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    __syncthreads();  // `shared` may still be read from a previous call
    if (lane == 0) shared[warp] = value;
    __syncthreads();
    float total = 0.0f;
    for (int w = 0; w < blockDim.x / 32; ++w) total += shared[w];
    return total;
}

__device__ float block_max(float value, float* shared) {
    for (int offset = 16; offset > 0; offset /= 2) value = fmaxf(value, __shfl_xor_sync(0xffffffffu, value, offset));
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    __syncthreads();
    if (lane == 0) shared[warp] = value;
    __syncthreads();
    float top = -FLT_MAX;
    for (int w = 0; w < blockDim.x / 32; ++w) top = fmaxf(top, shared[w]);
    return top;
}

__global__ void fill_parameters_kernel(bf16* out, std::size_t first, std::size_t count, bool norm_gain, float scale) {
    for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < count; i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
        const std::size_t index = first + i;
        out[index] = __float2bfloat16(norm_gain ? norm_gain_value(index) : weight_value(index, scale));
    }
}

__global__ void fill_inputs_kernel(bf16* input, bf16* output_gradient, std::size_t count, std::uint64_t seed) {
    for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < count; i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
        input[i] = __float2bfloat16(input_value(seed, i));
        output_gradient[i] = __float2bfloat16(output_gradient_value(seed, i));
    }
}

__global__ void rmsnorm_forward_kernel(const bf16* x, const bf16* gain, bf16* y, float* rstd, std::int64_t width) {
    __shared__ float shared[32];
    const bf16* row = x + blockIdx.x * width;
    float squares = 0.0f;
    for (std::int64_t i = threadIdx.x; i < width; i += blockDim.x) {
        const float v = __bfloat162float(row[i]);
        squares += v * v;
    }
    const float r = rsqrtf(block_sum(squares, shared) / static_cast<float>(width) + 1e-5f);
    if (threadIdx.x == 0) rstd[blockIdx.x] = r;
    bf16* out = y + blockIdx.x * width;
    for (std::int64_t i = threadIdx.x; i < width; i += blockDim.x)
        out[i] = __float2bfloat16(__bfloat162float(row[i]) * r * __bfloat162float(gain[i]));
}

// One block per `rows_per_block` rows; each thread owns columns threadIdx.x + k * blockDim.x, so
// its share of the gain's gradient accumulates in shared memory without conflicts.
__global__ void rmsnorm_backward_kernel(const bf16* x, const float* rstd, const bf16* gain, const bf16* dy, bf16* dx,
                                        float* d_gain, std::int64_t rows, std::int64_t width, std::int64_t rows_per_block) {
    extern __shared__ float gain_partial[];
    __shared__ float shared[32];
    for (std::int64_t i = threadIdx.x; i < width; i += blockDim.x) gain_partial[i] = 0.0f;
    const std::int64_t first = blockIdx.x * rows_per_block;
    const std::int64_t last = min(rows, first + rows_per_block);
    for (std::int64_t row = first; row < last; ++row) {
        const bf16* xr = x + row * width;
        const bf16* dyr = dy + row * width;
        const float r = rstd[row];
        float dot = 0.0f;
        for (std::int64_t i = threadIdx.x; i < width; i += blockDim.x) {
            const float xv = __bfloat162float(xr[i]), dyv = __bfloat162float(dyr[i]);
            dot += dyv * __bfloat162float(gain[i]) * xv;
            gain_partial[i] += dyv * xv * r;
        }
        const float coefficient = block_sum(dot, shared) / static_cast<float>(width) * r * r * r;
        bf16* dxr = dx + row * width;
        for (std::int64_t i = threadIdx.x; i < width; i += blockDim.x) {
            const float update = __bfloat162float(dyr[i]) * __bfloat162float(gain[i]) * r - __bfloat162float(xr[i]) * coefficient;
            dxr[i] = __float2bfloat16(__bfloat162float(dxr[i]) + update);
        }
    }
    for (std::int64_t i = threadIdx.x; i < width; i += blockDim.x) atomicAdd(d_gain + i, gain_partial[i]);
}

__global__ void to_bf16_kernel(const float* in, bf16* out, std::size_t count) {
    for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < count; i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
        out[i] = __float2bfloat16(in[i]);
}

__global__ void swiglu_forward_kernel(const bf16* gate_up, bf16* h, std::int64_t rows, std::int64_t ffn) {
    const std::size_t count = static_cast<std::size_t>(rows * ffn);
    for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < count; i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
        const std::size_t row = i / ffn, column = i % ffn;
        const float gate = __bfloat162float(gate_up[row * 2 * ffn + column]);
        const float up = __bfloat162float(gate_up[row * 2 * ffn + ffn + column]);
        h[i] = __float2bfloat16(gate / (1.0f + __expf(-gate)) * up);
    }
}

__global__ void swiglu_backward_kernel(const bf16* gate_up, const bf16* dh, bf16* d_gate_up, std::int64_t rows, std::int64_t ffn) {
    const std::size_t count = static_cast<std::size_t>(rows * ffn);
    for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < count; i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
        const std::size_t row = i / ffn, column = i % ffn;
        const float gate = __bfloat162float(gate_up[row * 2 * ffn + column]);
        const float up = __bfloat162float(gate_up[row * 2 * ffn + ffn + column]);
        const float sigmoid = 1.0f / (1.0f + __expf(-gate));
        const float d = __bfloat162float(dh[i]);
        d_gate_up[row * 2 * ffn + column] = __float2bfloat16(d * up * sigmoid * (1.0f + gate * (1.0f - sigmoid)));
        d_gate_up[row * 2 * ffn + ffn + column] = __float2bfloat16(d * gate * sigmoid);
    }
}

// One block per row of one matrix: blockIdx.x = matrix * sequence + row.
__global__ void causal_softmax_kernel(const float* scores, bf16* probabilities, std::int64_t sequence, float scale) {
    __shared__ float shared[32];
    const std::int64_t row = blockIdx.x % sequence;
    const float* in = scores + blockIdx.x * sequence;
    bf16* out = probabilities + blockIdx.x * sequence;
    float top = -FLT_MAX;
    for (std::int64_t j = threadIdx.x; j <= row; j += blockDim.x) top = fmaxf(top, in[j] * scale);
    top = block_max(top, shared);
    float sum = 0.0f;
    for (std::int64_t j = threadIdx.x; j <= row; j += blockDim.x) sum += __expf(in[j] * scale - top);
    const float inverse = 1.0f / block_sum(sum, shared);
    for (std::int64_t j = threadIdx.x; j < sequence; j += blockDim.x)
        out[j] = __float2bfloat16(j <= row ? __expf(in[j] * scale - top) * inverse : 0.0f);
}

__global__ void causal_softmax_backward_kernel(const bf16* probabilities, float* d_scores, bf16* d_scores_bf16,
                                               std::int64_t sequence, float scale) {
    __shared__ float shared[32];
    const std::int64_t row = blockIdx.x % sequence;
    const bf16* p = probabilities + blockIdx.x * sequence;
    float* ds = d_scores + blockIdx.x * sequence;
    bf16* out = d_scores_bf16 + blockIdx.x * sequence;
    float dot = 0.0f;
    for (std::int64_t j = threadIdx.x; j <= row; j += blockDim.x) dot += __bfloat162float(p[j]) * ds[j];
    dot = block_sum(dot, shared);
    for (std::int64_t j = threadIdx.x; j < sequence; j += blockDim.x)
        out[j] = __float2bfloat16(j <= row ? __bfloat162float(p[j]) * (ds[j] - dot) * scale : 0.0f);
}

__global__ void summarize_kernel(const bf16* values, std::size_t count, double* sums, unsigned long long* hash) {
    __shared__ double checksum_shared[elementwise_threads];
    __shared__ double magnitude_shared[elementwise_threads];
    __shared__ unsigned long long hash_shared[elementwise_threads];
    double checksum = 0.0, magnitude = 0.0;
    unsigned long long bits_sum = 0;
    for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < count; i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
        const double v = static_cast<double>(__bfloat162float(values[i]));
        const bool plus = (mix64(static_cast<std::uint64_t>(i) ^ 0xC4EC5A11ull) & 1u) != 0;
        checksum += plus ? v : -v;
        magnitude += fabs(v);
        const std::uint16_t raw = __bfloat16_as_ushort(values[i]);
        bits_sum += mix64((static_cast<std::uint64_t>(i) << 32) ^ raw);
    }
    checksum_shared[threadIdx.x] = checksum;
    magnitude_shared[threadIdx.x] = magnitude;
    hash_shared[threadIdx.x] = bits_sum;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
        if (threadIdx.x < stride) {
            checksum_shared[threadIdx.x] += checksum_shared[threadIdx.x + stride];
            magnitude_shared[threadIdx.x] += magnitude_shared[threadIdx.x + stride];
            hash_shared[threadIdx.x] += hash_shared[threadIdx.x + stride];
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        atomicAdd(sums, checksum_shared[0]);
        atomicAdd(sums + 1, magnitude_shared[0]);
        atomicAdd(hash, hash_shared[0]);
    }
}

}  // namespace

void fill_parameters(bf16* out, std::size_t first, std::size_t count, bool norm_gain, float inverse_sqrt_fan_in,
                     cudaStream_t stream) {
    fill_parameters_kernel<<<elementwise_blocks(count), elementwise_threads, 0, stream>>>(out, first, count, norm_gain,
                                                                                          inverse_sqrt_fan_in);
    SHAKEDOWN_CUDA(cudaGetLastError());
}

void fill_inputs(bf16* input, bf16* output_gradient, std::size_t count, std::uint64_t rank_seed, cudaStream_t stream) {
    fill_inputs_kernel<<<elementwise_blocks(count), elementwise_threads, 0, stream>>>(input, output_gradient, count, rank_seed);
    SHAKEDOWN_CUDA(cudaGetLastError());
}

void rmsnorm_forward(const bf16* x, const bf16* gain, bf16* y, float* rstd, std::int64_t rows, std::int64_t width,
                     cudaStream_t stream) {
    rmsnorm_forward_kernel<<<static_cast<unsigned>(rows), row_threads, 0, stream>>>(x, gain, y, rstd, width);
    SHAKEDOWN_CUDA(cudaGetLastError());
}

void rmsnorm_backward(const bf16* x, const float* rstd, const bf16* gain, const bf16* dy, bf16* dx, float* d_gain_f32,
                      std::int64_t rows, std::int64_t width, cudaStream_t stream) {
    // 32 rows a block: the gain's gradient is added to global memory once per block, not per row.
    constexpr std::int64_t rows_per_block = 32;
    const std::size_t shared_bytes = static_cast<std::size_t>(width) * sizeof(float);
    if (shared_bytes > 48 * 1024)
        SHAKEDOWN_CUDA(cudaFuncSetAttribute(rmsnorm_backward_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                            static_cast<int>(shared_bytes)));
    const auto blocks = static_cast<unsigned>((rows + rows_per_block - 1) / rows_per_block);
    rmsnorm_backward_kernel<<<blocks, row_threads, shared_bytes, stream>>>(x, rstd, gain, dy, dx, d_gain_f32, rows, width,
                                                                          rows_per_block);
    SHAKEDOWN_CUDA(cudaGetLastError());
}

void to_bf16(const float* in, bf16* out, std::size_t count, cudaStream_t stream) {
    to_bf16_kernel<<<elementwise_blocks(count), elementwise_threads, 0, stream>>>(in, out, count);
    SHAKEDOWN_CUDA(cudaGetLastError());
}

void swiglu_forward(const bf16* gate_up, bf16* h, std::int64_t rows, std::int64_t ffn, cudaStream_t stream) {
    swiglu_forward_kernel<<<elementwise_blocks(static_cast<std::size_t>(rows * ffn)), elementwise_threads, 0, stream>>>(
        gate_up, h, rows, ffn);
    SHAKEDOWN_CUDA(cudaGetLastError());
}

void swiglu_backward(const bf16* gate_up, const bf16* dh, bf16* d_gate_up, std::int64_t rows, std::int64_t ffn,
                     cudaStream_t stream) {
    swiglu_backward_kernel<<<elementwise_blocks(static_cast<std::size_t>(rows * ffn)), elementwise_threads, 0, stream>>>(
        gate_up, dh, d_gate_up, rows, ffn);
    SHAKEDOWN_CUDA(cudaGetLastError());
}

void causal_softmax(const float* scores, bf16* probabilities, std::int64_t matrices, std::int64_t sequence, float scale,
                    cudaStream_t stream) {
    causal_softmax_kernel<<<static_cast<unsigned>(matrices * sequence), row_threads, 0, stream>>>(scores, probabilities,
                                                                                                  sequence, scale);
    SHAKEDOWN_CUDA(cudaGetLastError());
}

void causal_softmax_backward(const bf16* probabilities, float* d_scores, bf16* d_scores_bf16, std::int64_t matrices,
                             std::int64_t sequence, float scale, cudaStream_t stream) {
    causal_softmax_backward_kernel<<<static_cast<unsigned>(matrices * sequence), row_threads, 0, stream>>>(
        probabilities, d_scores, d_scores_bf16, sequence, scale);
    SHAKEDOWN_CUDA(cudaGetLastError());
}

void summarize(const bf16* values, std::size_t count, double* checksum_and_magnitude, unsigned long long* hash,
               cudaStream_t stream) {
    summarize_kernel<<<elementwise_blocks(count) < 4096 ? elementwise_blocks(count) : 4096, elementwise_threads, 0, stream>>>(
        values, count, checksum_and_magnitude, hash);
    SHAKEDOWN_CUDA(cudaGetLastError());
}

}  // namespace shakedown::kernels::train::cuda
