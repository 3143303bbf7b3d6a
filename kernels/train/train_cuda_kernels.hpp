// The elementwise and row-wise parts of the GPU training step (the GEMMs and the attention are
// cuBLASLt's and cuDNN's): starting values, RMSNorm forward and backward, the gated FFN's
// SiLU(gate) * up and its backward, the explicit attention's causal softmax and its backward
// (the batched-GEMM path), and the gradient fingerprints. bf16 tensors, fp32 arithmetic, the
// definitions of host_layers.hpp. Launchers enqueue on `stream` and return at once.
#pragma once

#include <cuda_bf16.h>
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace shakedown::kernels::train::cuda {

using bf16 = __nv_bfloat16;

// `count` parameters from offset `first` of the buffer: weights scaled by 1/sqrt(fan_in), or norm gains.
void fill_parameters(bf16* out, std::size_t first, std::size_t count, bool norm_gain, float inverse_sqrt_fan_in,
                     cudaStream_t stream);
void fill_inputs(bf16* input, bf16* output_gradient, std::size_t count, std::uint64_t rank_seed, cudaStream_t stream);

void rmsnorm_forward(const bf16* x, const bf16* gain, bf16* y, float* rstd, std::int64_t rows, std::int64_t width,
                     cudaStream_t stream);
// dx += (the norm's gradient for dy); d_gain_f32 += sum over rows of dy * x * rstd (zero it first).
void rmsnorm_backward(const bf16* x, const float* rstd, const bf16* gain, const bf16* dy, bf16* dx, float* d_gain_f32,
                      std::int64_t rows, std::int64_t width, cudaStream_t stream);
void to_bf16(const float* in, bf16* out, std::size_t count, cudaStream_t stream);

// gate_up: rows x 2 ffn ([gate | up]); h = silu(gate) * up, rows x ffn.
void swiglu_forward(const bf16* gate_up, bf16* h, std::int64_t rows, std::int64_t ffn, cudaStream_t stream);
void swiglu_backward(const bf16* gate_up, const bf16* dh, bf16* d_gate_up, std::int64_t rows, std::int64_t ffn,
                     cudaStream_t stream);

// Explicit attention of `matrices` score matrices of sequence x sequence (fp32 scores in, each row
// made the causal softmax of scale * scores, written as bf16 probabilities).
void causal_softmax(const float* scores, bf16* probabilities, std::int64_t matrices, std::int64_t sequence, float scale,
                    cudaStream_t stream);
// d_scores (fp32, in: dP = dO V^T; out: dS = P * (dP - rowsum(P * dP)) * scale, zero above the diagonal).
void causal_softmax_backward(const bf16* probabilities, float* d_scores, bf16* d_scores_bf16, std::int64_t matrices,
                             std::int64_t sequence, float scale, cudaStream_t stream);

// Adds into `sums` (3 doubles, zeroed by the caller: checksum, magnitude, and the hash's bits as
// an unsigned 64-bit sum) the fingerprints of `count` bf16 values (train_engine.hpp).
void summarize(const bf16* values, std::size_t count, double* checksum_and_magnitude, unsigned long long* hash,
               cudaStream_t stream);

}  // namespace shakedown::kernels::train::cuda
