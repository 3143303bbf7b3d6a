#include "kernels/train/cudnn_attention.hpp"

#include "gpu/cuda_owners.hpp"
#include "kernels/train/cudnn_graph.hpp"
#include "kernels/train/cudnn_library.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

// The graphs below are the operation patterns cuDNN's fused flash-attention engines recognise
// (the same decomposition the cuDNN frontend's SDPA nodes lower to): cuDNN fuses the whole
// graph into one kernel when it matches, so every intermediate is virtual and the order and
// types of the operations matter, not only what they compute.

namespace shakedown::kernels::train {

namespace {

using cudnn::Dims;
using cudnn::GraphBuilder;
using cudnn::TensorKind;
using cudnn::TensorRef;

// The ids the variant packs name the caller's tensors by; intermediates take ids from 1000 up.
namespace uid {
constexpr std::int64_t q = 1, k_t = 2, v = 3, v_t = 4, o = 5, stats = 6, scale = 7, mask_value = 8, one = 9, d_o = 10,
                       d_q = 11, d_k = 12, d_v = 13, softmax_sum = 14, dq_accumulator = 15;
}

constexpr cudnnDataType_t bf16 = CUDNN_DATA_BFLOAT16;
constexpr cudnnDataType_t fp32 = CUDNN_DATA_FLOAT;

// The shape in int64 and the strides of every layout the graphs use.
struct Layout {
    std::int64_t b, h, g, s, d;
    std::int64_t row;  // elements in one token's qkv row

    explicit Layout(const AttentionShape& shape)
        : b(shape.batch), h(shape.heads), g(shape.kv_heads), s(shape.sequence), d(shape.head_dim),
          row((static_cast<std::int64_t>(shape.heads) + 2 * shape.kv_heads) * shape.head_dim) {}

    // A [b, heads, s, d] view of one column block of qkv (or d_qkv).
    Dims in_qkv() const { return {s * row, d, row, 1}; }
    // The same block seen transposed, [b, heads, d, s]: K^T for Q K^T, V^T for dO V^T.
    Dims in_qkv_transposed() const { return {s * row, d, 1, row}; }
    // out and d_out as [b, h, s, d].
    Dims out() const { return {s * h * d, d, h * d, 1}; }
    Dims packed(const Dims& dims) const { return {dims[1] * dims[2] * dims[3], dims[2] * dims[3], dims[3], 1}; }
    Dims square() const { return {b, h, s, s}; }
    Dims per_row() const { return {b, h, s, 1}; }
};

// Scores with the keys after each query replaced by `mask_value`: a row index and a column
// index generated over the score tensor, compared (row >= column keeps the score), then a select.
TensorRef causal_mask(GraphBuilder& graph, const Layout& layout, TensorRef scores, TensorRef mask_value) {
    const Dims square = layout.square(), strides = layout.packed(square);
    const TensorRef row = graph.tensor("query index", square, strides, CUDNN_DATA_INT32, TensorKind::intermediate);
    graph.pointwise(CUDNN_POINTWISE_GEN_INDEX, CUDNN_DATA_INT32, scores, row, std::nullopt, std::nullopt, 2);
    const TensorRef column = graph.tensor("key index", square, strides, CUDNN_DATA_INT32, TensorKind::intermediate);
    graph.pointwise(CUDNN_POINTWISE_GEN_INDEX, CUDNN_DATA_INT32, scores, column, std::nullopt, std::nullopt, 3);
    const TensorRef keep = graph.tensor("key <= query", square, strides, CUDNN_DATA_BOOLEAN, TensorKind::intermediate);
    graph.pointwise(CUDNN_POINTWISE_CMP_GE, CUDNN_DATA_BOOLEAN, row, keep, column);
    const TensorRef masked = graph.tensor("masked scores", square, strides, fp32, TensorKind::intermediate);
    // y = t ? x : b
    graph.pointwise(CUDNN_POINTWISE_BINARY_SELECT, fp32, scores, masked, mask_value, keep);
    return masked;
}

// O = softmax(mask(Q K^T * scale)) V, and stats = log-sum-exp of each masked, scaled row.
void build_forward(GraphBuilder& graph, const Layout& layout) {
    const auto& [b, h, g, s, d, row] = layout;
    const TensorRef q = graph.tensor("Q", {b, h, s, d}, layout.in_qkv(), bf16, TensorKind::memory, uid::q);
    const TensorRef k_t = graph.tensor("K^T", {b, g, d, s}, layout.in_qkv_transposed(), bf16, TensorKind::memory, uid::k_t);
    const TensorRef v = graph.tensor("V", {b, g, s, d}, layout.in_qkv(), bf16, TensorKind::memory, uid::v);
    const TensorRef o = graph.tensor("O", {b, h, s, d}, layout.out(), bf16, TensorKind::memory, uid::o);
    const TensorRef stats =
        graph.tensor("stats", layout.per_row(), layout.packed(layout.per_row()), fp32, TensorKind::memory, uid::stats);
    const TensorRef scale = graph.scalar("scale", uid::scale);
    const TensorRef mask_value = graph.scalar("mask value", uid::mask_value);

    const Dims square = layout.square(), square_strides = layout.packed(square);
    const Dims per_row = layout.per_row(), per_row_strides = layout.packed(per_row);
    auto intermediate = [&](const char* label, const Dims& dims, const Dims& strides, cudnnDataType_t type = fp32) {
        return graph.tensor(label, dims, strides, type, TensorKind::intermediate);
    };

    // Q has h heads, K^T g: cuDNN broadcasts each K/V head over its h/g query heads.
    const TensorRef scores = intermediate("Q K^T", square, square_strides);
    graph.matmul(q, k_t, scores);
    const TensorRef scaled = intermediate("scaled scores", square, square_strides);
    graph.pointwise(CUDNN_POINTWISE_MUL, fp32, scores, scaled, scale);
    const TensorRef masked = causal_mask(graph, layout, scaled, mask_value);

    const TensorRef row_max = intermediate("row max", per_row, per_row_strides);
    graph.reduction(CUDNN_REDUCE_TENSOR_MAX, masked, row_max);
    const TensorRef shifted = intermediate("scores - row max", square, square_strides);
    graph.pointwise(CUDNN_POINTWISE_SUB, fp32, masked, shifted, row_max);
    const TensorRef exponent = intermediate("exp", square, square_strides);
    graph.pointwise(CUDNN_POINTWISE_EXP, fp32, shifted, exponent);
    const TensorRef row_sum = intermediate("row sum", per_row, per_row_strides);
    graph.reduction(CUDNN_REDUCE_TENSOR_ADD, exponent, row_sum);
    const TensorRef log_sum = intermediate("log row sum", per_row, per_row_strides);
    graph.pointwise(CUDNN_POINTWISE_LOG, fp32, row_sum, log_sum);
    graph.pointwise(CUDNN_POINTWISE_ADD, fp32, row_max, stats, log_sum);
    // The probabilities enter the second product in the input type, as the engines expect.
    const TensorRef probabilities = intermediate("P", square, square_strides, bf16);
    graph.pointwise(CUDNN_POINTWISE_DIV, fp32, exponent, probabilities, row_sum);
    graph.matmul(probabilities, v, o);
}

// From dO, O, Q, K, V and the forward's stats: dQ, dK, dV. P is recomputed as
// exp(mask(S * scale) - stats); dS = P (dP - rowsum(dO * O)) * scale with dP = dO V^T;
// dV = P^T dO, dK = dS^T Q, dQ = dS K. With fewer K/V heads than query heads, dK and dV are
// computed per query head and summed over each group by a reduction.
void build_backward(GraphBuilder& graph, const Layout& layout) {
    const auto& [b, h, g, s, d, row] = layout;
    const TensorRef q = graph.tensor("Q", {b, h, s, d}, layout.in_qkv(), bf16, TensorKind::memory, uid::q);
    const TensorRef k_t = graph.tensor("K^T", {b, g, d, s}, layout.in_qkv_transposed(), bf16, TensorKind::memory, uid::k_t);
    const TensorRef v_t = graph.tensor("V^T", {b, g, d, s}, layout.in_qkv_transposed(), bf16, TensorKind::memory, uid::v_t);
    const TensorRef o = graph.tensor("O", {b, h, s, d}, layout.out(), bf16, TensorKind::memory, uid::o);
    const TensorRef d_o = graph.tensor("dO", {b, h, s, d}, layout.out(), bf16, TensorKind::memory, uid::d_o);
    const Dims per_row = layout.per_row(), per_row_strides = layout.packed(per_row);
    const TensorRef stats = graph.tensor("stats", per_row, per_row_strides, fp32, TensorKind::memory, uid::stats);
    const TensorRef d_q = graph.tensor("dQ", {b, h, s, d}, layout.in_qkv(), bf16, TensorKind::memory, uid::d_q);
    const TensorRef d_k = graph.tensor("dK", {b, g, s, d}, layout.in_qkv(), bf16, TensorKind::memory, uid::d_k);
    const TensorRef d_v = graph.tensor("dV", {b, g, s, d}, layout.in_qkv(), bf16, TensorKind::memory, uid::d_v);
    // Two fp32 buffers the engine needs in device memory (the wrapper owns them): each row's
    // rowsum(dO * O), and dQ accumulated in fp32 across the key blocks before it is rounded.
    const TensorRef softmax_sum =
        graph.tensor("rowsum(dO*O)", per_row, per_row_strides, fp32, TensorKind::memory, uid::softmax_sum);
    const TensorRef dq_accumulator =
        graph.tensor("dQ fp32", {b, h, s, d}, layout.packed({b, h, s, d}), fp32, TensorKind::memory, uid::dq_accumulator);
    const TensorRef scale = graph.scalar("scale", uid::scale);
    const TensorRef mask_value = graph.scalar("mask value", uid::mask_value);
    const TensorRef one = graph.scalar("one", uid::one);

    const Dims square = layout.square(), square_strides = layout.packed(square);
    // The same s x s block read as its transpose (key index first): no data moves.
    const Dims transposed_strides = {h * s * s, s * s, 1, s};
    const Dims head_block = {b, h, s, d}, head_block_strides = layout.packed(head_block);
    auto intermediate = [&](const char* label, const Dims& dims, const Dims& strides, cudnnDataType_t type = fp32) {
        return graph.tensor(label, dims, strides, type, TensorKind::intermediate);
    };

    // rowsum(dO * O), times 1 (the slot where dropout's scale would go), into memory.
    const TensorRef d_o_times_o = intermediate("dO * O", head_block, head_block_strides);
    graph.pointwise(CUDNN_POINTWISE_MUL, fp32, d_o, d_o_times_o, o);
    const TensorRef row_dot = intermediate("rowsum(dO * O) in flight", per_row, per_row_strides);
    graph.reduction(CUDNN_REDUCE_TENSOR_ADD, d_o_times_o, row_dot);
    graph.pointwise(CUDNN_POINTWISE_MUL, fp32, row_dot, softmax_sum, one);

    // P again, from the scores and the stats.
    const TensorRef scores = intermediate("Q K^T", square, square_strides);
    graph.matmul(q, k_t, scores);
    const TensorRef scaled = intermediate("scaled scores", square, square_strides);
    graph.pointwise(CUDNN_POINTWISE_MUL, fp32, scores, scaled, scale);
    const TensorRef centred = intermediate("scores - stats", square, square_strides);
    graph.pointwise(CUDNN_POINTWISE_SUB, fp32, scaled, centred, stats);
    const TensorRef masked = causal_mask(graph, layout, centred, mask_value);
    const TensorRef probabilities = intermediate("P", square, square_strides);
    graph.pointwise(CUDNN_POINTWISE_EXP, fp32, masked, probabilities);

    // dV = P^T dO.
    const TensorRef probabilities_t = intermediate("P^T", square, transposed_strides, bf16);
    graph.reshape(probabilities, probabilities_t);
    if (g == h) {
        graph.matmul(probabilities_t, d_o, d_v);
    } else {
        const TensorRef d_v_per_head = intermediate("dV per query head", head_block, head_block_strides, bf16);
        graph.matmul(probabilities_t, d_o, d_v_per_head);
        graph.reduction(CUDNN_REDUCE_TENSOR_ADD, d_v_per_head, d_v);
    }

    // dS = P (dO V^T - rowsum(dO * O)) * scale.
    const TensorRef d_p = intermediate("dO V^T", square, square_strides);
    graph.matmul(d_o, v_t, d_p);
    const TensorRef d_p_centred = intermediate("dP - rowsum", square, square_strides);
    graph.pointwise(CUDNN_POINTWISE_SUB, fp32, d_p, d_p_centred, softmax_sum);
    const TensorRef d_s_unscaled = intermediate("P (dP - rowsum)", square, square_strides);
    graph.pointwise(CUDNN_POINTWISE_MUL, fp32, d_p_centred, d_s_unscaled, probabilities);
    const TensorRef d_s = intermediate("dS", square, square_strides);
    graph.pointwise(CUDNN_POINTWISE_MUL, fp32, d_s_unscaled, d_s, scale);

    // dK = dS^T Q.
    const TensorRef d_s_t = intermediate("dS^T", square, transposed_strides, bf16);
    graph.reshape(d_s, d_s_t);
    if (g == h) {
        graph.matmul(d_s_t, q, d_k);
    } else {
        const TensorRef d_k_per_head = intermediate("dK per query head", head_block, head_block_strides, bf16);
        graph.matmul(d_s_t, q, d_k_per_head);
        graph.reduction(CUDNN_REDUCE_TENSOR_ADD, d_k_per_head, d_k);
    }

    // dQ = dS K: K is K^T read back in its stored orientation; the product lands in fp32 and is
    // rounded to bf16 by an identity.
    const TensorRef k = intermediate("K", {b, g, s, d}, layout.in_qkv());
    graph.reshape(k_t, k);
    graph.matmul(d_s, k, dq_accumulator);
    graph.pointwise(CUDNN_POINTWISE_IDENTITY, fp32, dq_accumulator, d_q);
}

}  // namespace

struct CudnnAttention::State {
    // Declared first so it is unloaded last: every descriptor and the handle call into it.
    std::unique_ptr<CudnnLibrary> library;
    std::unique_ptr<CudnnHandle> handle;
    std::unique_ptr<GraphBuilder> forward_graph;
    std::unique_ptr<GraphBuilder> backward_graph;
    std::optional<cudnn::ExecutionPlan> forward_plan;
    std::optional<cudnn::ExecutionPlan> backward_plan;
    gpu::DeviceBuffer<std::byte> workspace;  // shared: forward and backward run in turn on one stream
    gpu::DeviceBuffer<float> softmax_sum;
    gpu::DeviceBuffer<float> dq_accumulator;

    AttentionShape shape{};
    cudaStream_t stream = nullptr;
    // Host scalars passed by value: read by cuDNN when it launches, so they live here.
    float scale = 1.0f;
    float mask_value = 0.0f;
    float one = 1.0f;
};

CudnnAttention::CudnnAttention(std::unique_ptr<State> state) : state_(std::move(state)) {}
CudnnAttention::~CudnnAttention() = default;

std::unique_ptr<CudnnAttention> CudnnAttention::create(const AttentionShape& shape, cudaStream_t stream,
                                                       std::string& why_not) {
    if (shape.batch <= 0 || shape.heads <= 0 || shape.kv_heads <= 0 || shape.sequence <= 0) {
        why_not = "attention shape needs positive batch, heads, kv_heads and sequence";
        return nullptr;
    }
    if (shape.heads % shape.kv_heads != 0) {
        why_not = "heads (" + std::to_string(shape.heads) + ") is not a multiple of kv_heads (" +
                  std::to_string(shape.kv_heads) + ")";
        return nullptr;
    }
    if (shape.head_dim != 64 && shape.head_dim != 128) {
        why_not = "head_dim " + std::to_string(shape.head_dim) + " is not 64 or 128";
        return nullptr;
    }

    auto state = std::make_unique<State>();
    state->shape = shape;
    state->stream = stream;
    state->scale = 1.0f / std::sqrt(static_cast<float>(shape.head_dim));
    state->library = CudnnLibrary::load(why_not);
    if (!state->library) return nullptr;
    const CudnnLibrary& library = *state->library;
    // The cuDNN frontend refuses these two releases for bf16 attention: known wrong results.
    if (library.version() == 91000 || library.version() == 91001) {
        why_not = "cuDNN " + library.version_text() + " has known bf16 SDPA bugs (9.10.2 or later works)";
        return nullptr;
    }
    // Before 9.10 the engines expected the most negative float where a score is masked; from
    // 9.10 on, -infinity (a fully masked row cannot occur here: every query sees itself).
    state->mask_value = library.version() >= 91000 ? -std::numeric_limits<float>::infinity()
                                                   : std::numeric_limits<float>::lowest();

    const Layout layout(shape);
    try {
        state->handle = std::make_unique<CudnnHandle>(library, stream);
        state->forward_graph = std::make_unique<GraphBuilder>(library, "forward");
        build_forward(*state->forward_graph, layout);
        state->forward_graph->finalize(state->handle->get());
        state->forward_plan = cudnn::ExecutionPlan::choose(*state->forward_graph, state->handle->get(), why_not);
        if (!state->forward_plan) return nullptr;

        state->backward_graph = std::make_unique<GraphBuilder>(library, "backward");
        build_backward(*state->backward_graph, layout);
        state->backward_graph->finalize(state->handle->get());
        state->backward_plan = cudnn::ExecutionPlan::choose(*state->backward_graph, state->handle->get(), why_not);
        if (!state->backward_plan) return nullptr;
    } catch (const CudnnError& error) {
        // A descriptor this cuDNN rejects (an attribute it lacks, a pattern it refuses) means
        // it cannot run this graph: an answer for the caller, not a failure of the node.
        why_not = std::string("cuDNN ") + library.version_text() + " cannot build the attention graph: " + error.what();
        return nullptr;
    }

    const std::int64_t workspace = std::max(state->forward_plan->workspace_bytes(), state->backward_plan->workspace_bytes());
    state->workspace = gpu::DeviceBuffer<std::byte>(static_cast<std::size_t>(workspace));
    const std::size_t rows = static_cast<std::size_t>(layout.b * layout.h * layout.s);
    state->softmax_sum = gpu::DeviceBuffer<float>(rows);
    state->dq_accumulator = gpu::DeviceBuffer<float>(rows * static_cast<std::size_t>(layout.d));
    return std::unique_ptr<CudnnAttention>(new CudnnAttention(std::move(state)));
}

namespace {

// A column block of qkv / d_qkv: `heads_before` heads of head_dim bf16 elements in.
void* column_block(const void* base, std::int64_t heads_before, std::int64_t head_dim) {
    auto* bytes = static_cast<std::byte*>(const_cast<void*>(base));
    return bytes + heads_before * head_dim * 2;  // 2 bytes per bf16
}

}  // namespace

void CudnnAttention::forward(const void* qkv, void* out, float* stats) {
    State& state = *state_;
    const Layout layout(state.shape);
    const std::vector<std::int64_t> uids = {uid::q, uid::k_t, uid::v, uid::o, uid::stats, uid::scale, uid::mask_value};
    const std::vector<void*> pointers = {const_cast<void*>(qkv),
                                         column_block(qkv, layout.h, layout.d),
                                         column_block(qkv, layout.h + layout.g, layout.d),
                                         out,
                                         stats,
                                         &state.scale,
                                         &state.mask_value};
    state.forward_plan->execute(state.handle->get(), uids, pointers, state.workspace.get());
}

void CudnnAttention::backward(const void* qkv, const void* out, const void* d_out, const float* stats, void* d_qkv) {
    State& state = *state_;
    const Layout layout(state.shape);
    // Before 9.6 the engine added into the fp32 dQ buffer without clearing it first.
    if (state.library->version() < 90600)
        SHAKEDOWN_CUDA(cudaMemsetAsync(state.dq_accumulator.get(), 0, state.dq_accumulator.bytes(), state.stream));
    const std::vector<std::int64_t> uids = {uid::q,
                                            uid::k_t,
                                            uid::v_t,
                                            uid::o,
                                            uid::d_o,
                                            uid::stats,
                                            uid::d_q,
                                            uid::d_k,
                                            uid::d_v,
                                            uid::softmax_sum,
                                            uid::dq_accumulator,
                                            uid::scale,
                                            uid::mask_value,
                                            uid::one};
    const std::vector<void*> pointers = {const_cast<void*>(qkv),
                                         column_block(qkv, layout.h, layout.d),
                                         column_block(qkv, layout.h + layout.g, layout.d),
                                         const_cast<void*>(out),
                                         const_cast<void*>(d_out),
                                         const_cast<float*>(stats),
                                         d_qkv,
                                         column_block(d_qkv, layout.h, layout.d),
                                         column_block(d_qkv, layout.h + layout.g, layout.d),
                                         state.softmax_sum.get(),
                                         state.dq_accumulator.get(),
                                         &state.scale,
                                         &state.mask_value,
                                         &state.one};
    state.backward_plan->execute(state.handle->get(), uids, pointers, state.workspace.get());
}

std::string CudnnAttention::description() const {
    return "cuDNN " + state_->library->version_text() + " fused SDPA, forward engine " +
           std::to_string(state_->forward_plan->engine()) + ", backward engine " +
           std::to_string(state_->backward_plan->engine());
}

double CudnnAttention::forward_flop() const {
    const AttentionShape& shape = state_->shape;
    // Q K^T and P V, 2 flop per multiply-add each, over the lower triangle only.
    return 2.0 * 2.0 * shape.batch * shape.heads * static_cast<double>(shape.sequence) * shape.sequence * shape.head_dim /
           2.0;
}

double CudnnAttention::backward_flop() const {
    // Five products (S again, dP, dV, dK, dQ) against the forward's two.
    return 2.5 * forward_flop();
}

}  // namespace shakedown::kernels::train
