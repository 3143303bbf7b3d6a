// The decoder-layer stack of train_step on the host, forward and backward, in float (the host
// ranks' measured step) or double (the reference a small shape on any device is checked against).
// The GPU engine (train_cuda.cu) does the same arithmetic in bf16 with fp32 accumulation; this is
// the definition both follow:
//   n1 = rmsnorm(x) * g1;  qkv = n1 Wqkv^T;  a = causal_attention(qkv);  x2 = x + a Wo^T
//   n2 = rmsnorm(x2) * g2; [gate|up] = n2 Wgu^T;  h = silu(gate) * up;   out = x2 + h Wdown^T
// The loss is sum(out * G) for a per-rank tensor G, so the output gradient is G.
#pragma once

#include "kernels/train/host_blas.hpp"
#include "kernels/train/train_init.hpp"
#include "kernels/train/train_shape.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <vector>

namespace shakedown::kernels::train {

inline constexpr double rmsnorm_epsilon = 1e-5;

template <typename T>
class HostLayerStack {
public:
    // `bf16_values`: every starting value rounded to bf16 first, as a GPU's bf16 step starts.
    HostLayerStack(const StepShape& shape, std::uint64_t rank_seed, bool bf16_values)
        : shape_(shape), layout_(parameter_layout(shape)) {
        const LayerShape& l = shape.layer;
        const auto round = [bf16_values](float value) { return static_cast<T>(bf16_values ? round_to_bf16(value) : value); };
        std::size_t total = 0;
        for (const TensorSlot& slot : layout_) total += slot.elements;
        parameters_.resize(total);
        gradients_.assign(total, T{0});
        for (const TensorSlot& slot : layout_) {
            const bool norm = slot.kind == TensorKind::norm_ffn || slot.kind == TensorKind::norm_attention;
            const float scale = 1.0f / std::sqrt(static_cast<float>(slot.columns));
            for (std::size_t i = 0; i < slot.elements; ++i) {
                const std::size_t index = slot.offset + i;
                parameters_[index] = round(norm ? norm_gain_value(index) : weight_value(index, scale));
            }
        }
        const auto tokens = static_cast<std::size_t>(shape.tokens());
        input_.resize(tokens * static_cast<std::size_t>(l.hidden));
        output_gradient_.resize(input_.size());
        for (std::size_t i = 0; i < input_.size(); ++i) {
            input_[i] = round(input_value(rank_seed, i));
            output_gradient_[i] = round(output_gradient_value(rank_seed, i));
        }
        saved_.resize(static_cast<std::size_t>(shape.layers));
    }

    const StepShape& shape() const { return shape_; }
    const std::vector<TensorSlot>& layout() const { return layout_; }
    const std::vector<T>& parameters() const { return parameters_; }
    std::vector<T>& parameters() { return parameters_; }  // a finite-difference check perturbs them
    std::vector<T>& gradients() { return gradients_; }
    const std::vector<T>& output() const { return output_; }

    void forward() {
        std::vector<T> x = input_;
        for (std::int64_t layer = 0; layer < shape_.layers; ++layer) x = forward_layer(layer, std::move(x));
        output_ = std::move(x);
    }

    // After forward(): every gradient, overwritten; `on_ready(slot)` as each tensor's completes.
    void backward(const std::function<void(std::size_t slot)>& on_ready) {
        std::vector<T> d = output_gradient_;
        for (std::int64_t layer = shape_.layers - 1; layer >= 0; --layer) d = backward_layer(layer, std::move(d), on_ready);
    }

private:
    struct Saved {
        std::vector<T> x, rstd1, n1, qkv, probabilities, attention, x2, rstd2, n2, gate_up, h;
    };

    const T* param(std::int64_t layer, TensorKind kind) const { return parameters_.data() + slot_of(layout_, layer, kind).offset; }
    T* grad(std::int64_t layer, TensorKind kind) { return gradients_.data() + slot_of(layout_, layer, kind).offset; }
    void ready(std::int64_t layer, TensorKind kind, const std::function<void(std::size_t)>& on_ready) {
        for (std::size_t slot = 0; slot < layout_.size(); ++slot)
            if (layout_[slot].layer == layer && layout_[slot].kind == kind) on_ready(slot);
    }

    std::int64_t tokens() const { return shape_.tokens(); }

    // y = x * rstd * g per token; rstd saved.
    void rmsnorm(const std::vector<T>& x, const T* gain, std::vector<T>& y, std::vector<T>& rstd) const {
        const std::int64_t h = shape_.layer.hidden;
        y.resize(x.size());
        rstd.resize(static_cast<std::size_t>(tokens()));
        for (std::int64_t t = 0; t < tokens(); ++t) {
            const T* row = x.data() + t * h;
            double squares = 0.0;
            for (std::int64_t i = 0; i < h; ++i) squares += static_cast<double>(row[i]) * static_cast<double>(row[i]);
            const T r = static_cast<T>(1.0 / std::sqrt(squares / static_cast<double>(h) + rmsnorm_epsilon));
            rstd[static_cast<std::size_t>(t)] = r;
            for (std::int64_t i = 0; i < h; ++i) y[static_cast<std::size_t>(t * h + i)] = row[i] * r * gain[i];
        }
    }

    // dx += d(rmsnorm)/dx . dy; d_gain = sum over tokens of dy * x * rstd.
    void rmsnorm_backward(const std::vector<T>& x, const std::vector<T>& rstd, const T* gain, const std::vector<T>& dy,
                          std::vector<T>& dx, T* d_gain) const {
        const std::int64_t h = shape_.layer.hidden;
        std::fill(d_gain, d_gain + h, T{0});
        for (std::int64_t t = 0; t < tokens(); ++t) {
            const T r = rstd[static_cast<std::size_t>(t)];
            const T* xr = x.data() + t * h;
            const T* dyr = dy.data() + t * h;
            double dot = 0.0;  // sum of (dy * g) * x over the row
            for (std::int64_t i = 0; i < h; ++i) {
                dot += static_cast<double>(dyr[i] * gain[i]) * static_cast<double>(xr[i]);
                d_gain[i] += dyr[i] * xr[i] * r;
            }
            const T coefficient = static_cast<T>(dot / static_cast<double>(h)) * r * r * r;
            for (std::int64_t i = 0; i < h; ++i)
                dx[static_cast<std::size_t>(t * h + i)] += dyr[i] * gain[i] * r - xr[i] * coefficient;
        }
    }

    // Causal softmax attention of every head; probabilities saved for the backward.
    void attention(const std::vector<T>& qkv, std::vector<T>& probabilities, std::vector<T>& out) const {
        const LayerShape& l = shape_.layer;
        const std::int64_t s = shape_.sequence, d = l.head_dim(), width = l.qkv_width(), group = l.heads / l.kv_heads;
        const std::int64_t out_width = l.heads * d;
        const T scale = static_cast<T>(1.0 / std::sqrt(static_cast<double>(d)));
        probabilities.assign(static_cast<std::size_t>(shape_.micro_batch * l.heads * s * s), T{0});
        out.assign(static_cast<std::size_t>(tokens() * out_width), T{0});
        for (std::int64_t b = 0; b < shape_.micro_batch; ++b)
            for (std::int64_t head = 0; head < l.heads; ++head) {
                const std::int64_t kv = head / group;
                const T* q = qkv.data() + b * s * width + head * d;
                const T* k = qkv.data() + b * s * width + (l.heads + kv) * d;
                const T* v = qkv.data() + b * s * width + (l.heads + l.kv_heads + kv) * d;
                T* p = probabilities.data() + (b * l.heads + head) * s * s;
                host_gemm(false, true, s, s, d, scale, q, width, k, width, T{0}, p, s);
                for (std::int64_t i = 0; i < s; ++i) {
                    T* row = p + i * s;
                    const T top = *std::max_element(row, row + i + 1);
                    T sum = 0;
                    for (std::int64_t j = 0; j <= i; ++j) sum += row[j] = std::exp(row[j] - top);
                    for (std::int64_t j = 0; j <= i; ++j) row[j] /= sum;
                    std::fill(row + i + 1, row + s, T{0});
                }
                host_gemm(false, false, s, d, s, T{1}, p, s, v, width, T{0}, out.data() + b * s * out_width + head * d,
                          out_width);
            }
    }

    void attention_backward(const Saved& saved, const std::vector<T>& d_out, std::vector<T>& d_qkv) const {
        const LayerShape& l = shape_.layer;
        const std::int64_t s = shape_.sequence, d = l.head_dim(), width = l.qkv_width(), group = l.heads / l.kv_heads;
        const std::int64_t out_width = l.heads * d;
        const T scale = static_cast<T>(1.0 / std::sqrt(static_cast<double>(d)));
        d_qkv.assign(saved.qkv.size(), T{0});
        std::vector<T> d_scores(static_cast<std::size_t>(s * s));
        for (std::int64_t b = 0; b < shape_.micro_batch; ++b)
            for (std::int64_t head = 0; head < l.heads; ++head) {
                const std::int64_t kv = head / group;
                const std::int64_t base = b * s * width;
                const T* q = saved.qkv.data() + base + head * d;
                const T* k = saved.qkv.data() + base + (l.heads + kv) * d;
                const T* v = saved.qkv.data() + base + (l.heads + l.kv_heads + kv) * d;
                const T* p = saved.probabilities.data() + (b * l.heads + head) * s * s;
                const T* o = saved.attention.data() + b * s * out_width + head * d;
                const T* d_o = d_out.data() + b * s * out_width + head * d;
                // dV += P^T dO; dP = dO V^T; dS = P * (dP - rowsum(dO * O)) * scale.
                host_gemm(true, false, s, d, s, T{1}, p, s, d_o, out_width, T{1},
                          d_qkv.data() + base + (l.heads + l.kv_heads + kv) * d, width);
                host_gemm(false, true, s, s, d, T{1}, d_o, out_width, v, width, T{0}, d_scores.data(), s);
                for (std::int64_t i = 0; i < s; ++i) {
                    T row_dot = 0;
                    for (std::int64_t c = 0; c < d; ++c) row_dot += d_o[i * out_width + c] * o[i * out_width + c];
                    for (std::int64_t j = 0; j < s; ++j) {
                        T& ds = d_scores[static_cast<std::size_t>(i * s + j)];
                        ds = j <= i ? p[i * s + j] * (ds - row_dot) * scale : T{0};
                    }
                }
                // dQ = dS K; dK += dS^T Q.
                host_gemm(false, false, s, d, s, T{1}, d_scores.data(), s, k, width, T{0}, d_qkv.data() + base + head * d,
                          width);
                host_gemm(true, false, s, d, s, T{1}, d_scores.data(), s, q, width, T{1},
                          d_qkv.data() + base + (l.heads + kv) * d, width);
            }
    }

    std::vector<T> forward_layer(std::int64_t layer, std::vector<T> x) {
        const LayerShape& l = shape_.layer;
        const std::int64_t n = tokens(), h = l.hidden, f = l.ffn;
        Saved& saved = saved_[static_cast<std::size_t>(layer)];
        saved.x = std::move(x);
        rmsnorm(saved.x, param(layer, TensorKind::norm_attention), saved.n1, saved.rstd1);
        saved.qkv.resize(static_cast<std::size_t>(n * l.qkv_width()));
        host_gemm(false, true, n, l.qkv_width(), h, T{1}, saved.n1.data(), h, param(layer, TensorKind::w_qkv), h, T{0},
                  saved.qkv.data(), l.qkv_width());
        attention(saved.qkv, saved.probabilities, saved.attention);
        saved.x2 = saved.x;
        host_gemm(false, true, n, h, l.heads * l.head_dim(), T{1}, saved.attention.data(), l.heads * l.head_dim(),
                  param(layer, TensorKind::w_out), l.heads * l.head_dim(), T{1}, saved.x2.data(), h);
        rmsnorm(saved.x2, param(layer, TensorKind::norm_ffn), saved.n2, saved.rstd2);
        saved.gate_up.resize(static_cast<std::size_t>(n * 2 * f));
        host_gemm(false, true, n, 2 * f, h, T{1}, saved.n2.data(), h, param(layer, TensorKind::w_gate_up), h, T{0},
                  saved.gate_up.data(), 2 * f);
        saved.h.resize(static_cast<std::size_t>(n * f));
        for (std::int64_t t = 0; t < n; ++t)
            for (std::int64_t i = 0; i < f; ++i) {
                const T gate = saved.gate_up[static_cast<std::size_t>(t * 2 * f + i)];
                const T up = saved.gate_up[static_cast<std::size_t>(t * 2 * f + f + i)];
                saved.h[static_cast<std::size_t>(t * f + i)] = gate / (T{1} + std::exp(-gate)) * up;
            }
        std::vector<T> out = saved.x2;
        host_gemm(false, true, n, h, f, T{1}, saved.h.data(), f, param(layer, TensorKind::w_down), f, T{1}, out.data(), h);
        return out;
    }

    std::vector<T> backward_layer(std::int64_t layer, std::vector<T> d_out,
                                  const std::function<void(std::size_t)>& on_ready) {
        const LayerShape& l = shape_.layer;
        const std::int64_t n = tokens(), h = l.hidden, f = l.ffn, a = l.heads * l.head_dim(), w = l.qkv_width();
        const Saved& saved = saved_[static_cast<std::size_t>(layer)];
        // FFN: dWdown = dOut^T h; dh = dOut Wdown; through silu(gate) * up; dWgu; dn2.
        host_gemm(true, false, h, f, n, T{1}, d_out.data(), h, saved.h.data(), f, T{0}, grad(layer, TensorKind::w_down), f);
        ready(layer, TensorKind::w_down, on_ready);
        std::vector<T> dh(static_cast<std::size_t>(n * f));
        host_gemm(false, false, n, f, h, T{1}, d_out.data(), h, param(layer, TensorKind::w_down), f, T{0}, dh.data(), f);
        std::vector<T> d_gate_up(static_cast<std::size_t>(n * 2 * f));
        for (std::int64_t t = 0; t < n; ++t)
            for (std::int64_t i = 0; i < f; ++i) {
                const T gate = saved.gate_up[static_cast<std::size_t>(t * 2 * f + i)];
                const T up = saved.gate_up[static_cast<std::size_t>(t * 2 * f + f + i)];
                const T sigmoid = T{1} / (T{1} + std::exp(-gate));
                const T silu = gate * sigmoid;
                const T d = dh[static_cast<std::size_t>(t * f + i)];
                d_gate_up[static_cast<std::size_t>(t * 2 * f + i)] = d * up * sigmoid * (T{1} + gate * (T{1} - sigmoid));
                d_gate_up[static_cast<std::size_t>(t * 2 * f + f + i)] = d * silu;
            }
        host_gemm(true, false, 2 * f, h, n, T{1}, d_gate_up.data(), 2 * f, saved.n2.data(), h, T{0},
                  grad(layer, TensorKind::w_gate_up), h);
        ready(layer, TensorKind::w_gate_up, on_ready);
        std::vector<T> dn2(static_cast<std::size_t>(n * h));
        host_gemm(false, false, n, h, 2 * f, T{1}, d_gate_up.data(), 2 * f, param(layer, TensorKind::w_gate_up), h, T{0},
                  dn2.data(), h);
        std::vector<T> dx2 = d_out;  // the residual passes the gradient through
        rmsnorm_backward(saved.x2, saved.rstd2, param(layer, TensorKind::norm_ffn), dn2, dx2, grad(layer, TensorKind::norm_ffn));
        ready(layer, TensorKind::norm_ffn, on_ready);
        // Attention: dWo = dx2^T a; da = dx2 Wo; through the attention; dWqkv; dn1.
        host_gemm(true, false, h, a, n, T{1}, dx2.data(), h, saved.attention.data(), a, T{0}, grad(layer, TensorKind::w_out), a);
        ready(layer, TensorKind::w_out, on_ready);
        std::vector<T> d_attention(static_cast<std::size_t>(n * a));
        host_gemm(false, false, n, a, h, T{1}, dx2.data(), h, param(layer, TensorKind::w_out), a, T{0}, d_attention.data(), a);
        std::vector<T> d_qkv;
        attention_backward(saved, d_attention, d_qkv);
        host_gemm(true, false, w, h, n, T{1}, d_qkv.data(), w, saved.n1.data(), h, T{0}, grad(layer, TensorKind::w_qkv), h);
        ready(layer, TensorKind::w_qkv, on_ready);
        std::vector<T> dn1(static_cast<std::size_t>(n * h));
        host_gemm(false, false, n, h, w, T{1}, d_qkv.data(), w, param(layer, TensorKind::w_qkv), h, T{0}, dn1.data(), h);
        std::vector<T> dx = dx2;
        rmsnorm_backward(saved.x, saved.rstd1, param(layer, TensorKind::norm_attention), dn1, dx,
                         grad(layer, TensorKind::norm_attention));
        ready(layer, TensorKind::norm_attention, on_ready);
        return dx;
    }

    StepShape shape_;
    std::vector<TensorSlot> layout_;
    std::vector<T> parameters_;
    std::vector<T> gradients_;
    std::vector<T> input_;
    std::vector<T> output_gradient_;
    std::vector<T> output_;
    std::vector<Saved> saved_;
};

}  // namespace shakedown::kernels::train
