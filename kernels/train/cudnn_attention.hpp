// Fused causal scaled-dot-product attention (forward and backward) for the transformer
// training step, through cuDNN 9's graph API with libcudnn loaded at run time
// (cudnn_library.hpp): bf16 tensors, fp32 softmax and accumulation, grouped-query attention.
//
// The tensors are the QKV projection's output as it lies in memory, so nothing is transposed:
//   qkv    bf16 [batch*sequence, (heads + 2*kv_heads)*head_dim] row-major, tokens ordered
//          [batch][sequence]; Q head h at column h*head_dim, K head g at (heads+g)*head_dim,
//          V head g at (heads+kv_heads+g)*head_dim.
//   out    bf16 [batch*sequence, heads*head_dim] row-major (also d_out).
//   stats  fp32 [batch, heads, sequence] contiguous: each softmax row's log-sum-exp (natural
//          log, of the scaled scores), the forward's output the backward needs.
//   d_qkv  bf16 in qkv's layout: dQ, dK, dV in their column ranges; dK and dV summed over the
//          query heads that share each K/V head.
// Causal with the diagonal at the top left (query i sees keys 0..i), scale 1/sqrt(head_dim).
// Plain C++17 (the probes include it from .cu files); the cuDNN types stay in the .cpp.
#pragma once

#include <cuda_runtime_api.h>

#include <memory>
#include <string>

namespace shakedown::kernels::train {

struct AttentionShape {
    int batch = 0;
    int heads = 0;     // query heads
    int kv_heads = 0;  // key/value heads; divides heads
    int sequence = 0;
    int head_dim = 0;  // 64 or 128
};

class CudnnAttention {
public:
    // nullptr with `why_not` (one line) when cuDNN cannot run this shape here: no libcudnn 9,
    // a shape the wrapper refuses, no engine for the graph, a graph this cuDNN rejects. Never
    // throws for that; throws on a CUDA failure (the workspace allocation).
    static std::unique_ptr<CudnnAttention> create(const AttentionShape& shape, cudaStream_t stream, std::string& why_not);

    // Enqueued on the stream given to create(); every cuDNN failure throws CudnnError.
    void forward(const void* qkv, void* out, float* stats);
    void backward(const void* qkv, const void* out, const void* d_out, const float* stats, void* d_qkv);

    // "cuDNN 9.13.0 fused SDPA, forward engine 5, backward engine 7"
    std::string description() const;
    // The multiply-adds of the causal half actually computed, times 2: forward 2*b*h*s*s*d
    // (two s x s x d products, half of each skipped), backward 2.5 times that.
    double forward_flop() const;
    double backward_flop() const;

    ~CudnnAttention();
    CudnnAttention(const CudnnAttention&) = delete;
    CudnnAttention& operator=(const CudnnAttention&) = delete;

private:
    struct State;
    explicit CudnnAttention(std::unique_ptr<State> state);
    std::unique_ptr<State> state_;
};

}  // namespace shakedown::kernels::train
