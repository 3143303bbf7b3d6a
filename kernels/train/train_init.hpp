// The step's starting values, from a counter-based hash of (seed, index) so the host, the GPU and
// the higher-precision reference produce the same numbers without copying them: weights uniform in
// +-1/sqrt(fan-in) (identical on every rank, as data parallelism starts), norm gains near 1, and
// per-rank inputs and output gradients uniform in [-1, 1) (each rank trains on its own data).
// Header-only and constexpr: the CUDA kernels call the same functions.
#pragma once

#include "core/counter_hash.hpp"

#include <cstdint>

namespace shakedown::kernels::train {

inline constexpr std::uint64_t weight_stream = 0x7E16'47A5;
inline constexpr std::uint64_t input_stream = 0x1A9B'7E03;
inline constexpr std::uint64_t output_gradient_stream = 0x0D07'C0DE;

// Uniform in [-1, 1) from 24 hashed bits: exact in float, bf16 rounds it once.
constexpr float uniform_value(std::uint64_t stream, std::uint64_t seed, std::uint64_t index) {
    const std::uint64_t bits = mix64((stream ^ (seed * 0x9E3779B97F4A7C15ull)) + index * 0xD1B54A32D192ED03ull) >> 40;
    return static_cast<float>(bits) * (2.0f / 16777216.0f) - 1.0f;
}

// A weight of a matrix with `fan_in` inputs; `index` counts through the whole parameter buffer.
constexpr float weight_value(std::uint64_t index, float inverse_sqrt_fan_in) {
    return uniform_value(weight_stream, 1, index) * inverse_sqrt_fan_in;
}
constexpr float norm_gain_value(std::uint64_t index) { return 1.0f + 0.1f * uniform_value(weight_stream, 2, index); }
constexpr float input_value(std::uint64_t rank_seed, std::uint64_t index) {
    return uniform_value(input_stream, rank_seed, index);
}
constexpr float output_gradient_value(std::uint64_t rank_seed, std::uint64_t index) {
    return uniform_value(output_gradient_stream, rank_seed, index);
}

// Round to the nearest bfloat16 (ties to even), kept in a float: what the GPU's bf16 tensors hold.
inline float round_to_bf16(float value) {
    std::uint32_t bits = 0;
    __builtin_memcpy(&bits, &value, sizeof bits);
    bits += 0x7FFFu + ((bits >> 16) & 1u);
    bits &= 0xFFFF0000u;
    float rounded = 0.0f;
    __builtin_memcpy(&rounded, &bits, sizeof bits);
    return rounded;
}

}  // namespace shakedown::kernels::train
