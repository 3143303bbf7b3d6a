#include "kernels/train/train_shape.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace shakedown::kernels::train {

std::int64_t LayerShape::parameters() const {
    const std::int64_t attention = hidden * qkv_width() + hidden * heads * head_dim();
    const std::int64_t feed_forward = 3 * hidden * ffn;
    return attention + feed_forward + 2 * hidden;
}

std::optional<LayerShape> preset_shape(std::string_view name) {
    // Llama 3 8B and 70B: hidden, FFN, query heads, key/value heads (head dimension 128).
    if (name == "llama3_8b") return LayerShape{4096, 14336, 32, 8};
    if (name == "llama3_70b") return LayerShape{8192, 28672, 64, 8};
    // Small enough for a shared CPU core and for the higher-precision reference check.
    if (name == "tiny") return LayerShape{256, 768, 4, 2};
    return std::nullopt;
}

std::string shape_problem(const LayerShape& shape) {
    if (shape.hidden < 1 || shape.ffn < 1 || shape.heads < 1 || shape.kv_heads < 1)
        return "hidden, ffn, heads and kv_heads must be at least 1";
    if (shape.hidden % shape.heads != 0)
        return fmt::format("hidden {} is not a multiple of heads {}", shape.hidden, shape.heads);
    if (shape.heads % shape.kv_heads != 0)
        return fmt::format("heads {} is not a multiple of kv_heads {} (grouped-query attention)", shape.heads, shape.kv_heads);
    if (shape.head_dim() % 8 != 0)
        return fmt::format("the head dimension hidden / heads = {} is not a multiple of 8", shape.head_dim());
    if (shape.ffn % 8 != 0) return fmt::format("ffn {} is not a multiple of 8", shape.ffn);
    return {};
}

double StepShape::model_flop() const {
    const double tokens_per_step = static_cast<double>(tokens());
    const double dense = 6.0 * static_cast<double>(layer.parameters() * layers) * tokens_per_step;
    const double attention = 12.0 * static_cast<double>(layers) * static_cast<double>(layer.hidden) *
                             static_cast<double>(sequence) * tokens_per_step;
    return dense + attention;
}

std::string_view to_string(TensorKind kind) {
    switch (kind) {
    case TensorKind::w_down: return "w_down";
    case TensorKind::w_gate_up: return "w_gate_up";
    case TensorKind::norm_ffn: return "norm_ffn";
    case TensorKind::w_out: return "w_out";
    case TensorKind::w_qkv: return "w_qkv";
    case TensorKind::norm_attention: return "norm_attention";
    }
    return "?";
}

std::vector<TensorSlot> parameter_layout(const StepShape& shape) {
    const LayerShape& l = shape.layer;
    std::vector<TensorSlot> layout;
    std::size_t offset = 0;
    for (std::int64_t layer = shape.layers - 1; layer >= 0; --layer) {
        const auto add = [&](TensorKind kind, std::int64_t rows, std::int64_t columns) {
            const auto elements = static_cast<std::size_t>(rows * columns);
            layout.push_back({layer, kind, offset, elements, rows, columns});
            offset += elements;
        };
        add(TensorKind::w_down, l.hidden, l.ffn);
        add(TensorKind::w_gate_up, 2 * l.ffn, l.hidden);
        add(TensorKind::norm_ffn, 1, l.hidden);
        add(TensorKind::w_out, l.hidden, l.heads * l.head_dim());
        add(TensorKind::w_qkv, l.qkv_width(), l.hidden);
        add(TensorKind::norm_attention, 1, l.hidden);
    }
    return layout;
}

const TensorSlot& slot_of(const std::vector<TensorSlot>& layout, std::int64_t layer, TensorKind kind) {
    for (const TensorSlot& slot : layout)
        if (slot.layer == layer && slot.kind == kind) return slot;
    throw std::out_of_range(fmt::format("no tensor {} in layer {}", to_string(kind), layer));
}

std::vector<Bucket> make_buckets(const std::vector<TensorSlot>& layout, std::size_t element_bytes,
                                 std::size_t bucket_bytes) {
    std::vector<Bucket> buckets;
    for (std::size_t slot = 0; slot < layout.size(); ++slot) {
        if (buckets.empty() || buckets.back().elements * element_bytes >= bucket_bytes)
            buckets.push_back({slot, slot, layout[slot].offset, 0});
        Bucket& open = buckets.back();
        open.last_slot = slot;
        open.elements += layout[slot].elements;
    }
    return buckets;
}

std::optional<std::size_t> bucket_closed_by(const std::vector<Bucket>& buckets, std::size_t slot) {
    for (std::size_t index = 0; index < buckets.size(); ++index)
        if (buckets[index].last_slot == slot) return index;
    return std::nullopt;
}

}  // namespace shakedown::kernels::train
