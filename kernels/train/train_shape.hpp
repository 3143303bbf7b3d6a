// The shape of the transformer decoder layers train_step runs, and what follows from it alone:
// presets of published models' layer dimensions, the model FLOP of a step (counted from the
// shapes, as MFU is conventionally counted), and the layout of parameters and gradients, in the
// order the backward pass completes them, cut into the buckets that are reduced as they fill.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace shakedown::kernels::train {

// One decoder layer: RMSNorm, QKV projection (grouped-query attention), causal attention,
// output projection, residual; RMSNorm, gated FFN (SiLU(x W_gate) * x W_up) W_down, residual.
struct LayerShape {
    std::int64_t hidden = 0;
    std::int64_t ffn = 0;
    std::int64_t heads = 0;
    std::int64_t kv_heads = 0;

    std::int64_t head_dim() const { return hidden / heads; }
    std::int64_t qkv_width() const { return (heads + 2 * kv_heads) * head_dim(); }
    std::int64_t parameters() const;  // weights of one layer, norms included
};

// "llama3_8b", "llama3_70b" (the published models' layer dimensions), "tiny" (small enough for
// the host and for the reference check), or nothing for another name.
std::optional<LayerShape> preset_shape(std::string_view name);
inline constexpr const char* model_presets_text = "llama3_8b, llama3_70b, tiny";

// Why a shape cannot run ("hidden 4000 is not a multiple of heads 3"), empty when it can.
std::string shape_problem(const LayerShape& shape);

struct StepShape {
    LayerShape layer;
    std::int64_t layers = 0;
    std::int64_t sequence = 0;
    std::int64_t micro_batch = 0;

    std::int64_t tokens() const { return sequence * micro_batch; }
    // Model FLOP of forward and backward of the stack for the step's tokens: 6 per parameter per
    // token plus the attention's 12 * layers * hidden * sequence per token, counted without the
    // causal mask's saving (the convention MFU figures are quoted in).
    double model_flop() const;
};

// The tensors of one layer, in the order the backward pass finishes their gradients.
enum class TensorKind { w_down, w_gate_up, norm_ffn, w_out, w_qkv, norm_attention };
inline constexpr int tensors_per_layer = 6;
std::string_view to_string(TensorKind kind);

struct TensorSlot {
    std::int64_t layer = 0;
    TensorKind kind = TensorKind::w_down;
    std::size_t offset = 0;  // elements from the start of the parameter (and gradient) buffer
    std::size_t elements = 0;
    std::int64_t rows = 0;  // a weight W of y = x W^T: rows = outputs, columns = inputs; a norm: 1 x hidden
    std::int64_t columns = 0;
};

// Parameters and gradients share one layout: the last layer first, each layer's tensors in
// TensorKind order, so every bucket is one contiguous range.
std::vector<TensorSlot> parameter_layout(const StepShape& shape);
const TensorSlot& slot_of(const std::vector<TensorSlot>& layout, std::int64_t layer, TensorKind kind);

struct Bucket {
    std::size_t first_slot = 0;  // slots [first_slot, last_slot] of the layout
    std::size_t last_slot = 0;
    std::size_t offset = 0;
    std::size_t elements = 0;
};

// Consecutive slots gathered until a bucket holds at least `bucket_bytes` (the last may hold
// less), as data-parallel frameworks bucket gradients; a slot is never split.
std::vector<Bucket> make_buckets(const std::vector<TensorSlot>& layout, std::size_t element_bytes,
                                 std::size_t bucket_bytes);

// The bucket that closes with slot `slot`, or nothing when the slot is not a bucket's last.
std::optional<std::size_t> bucket_closed_by(const std::vector<Bucket>& buckets, std::size_t slot);

}  // namespace shakedown::kernels::train
