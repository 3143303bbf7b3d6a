#include "comm/payload.hpp"

#include <bit>
#include <cstring>

static_assert(std::endian::native == std::endian::little, "payload words are laid out little-endian");

namespace shakedown::comm {

std::uint64_t payload_seed(std::uint64_t iteration, std::size_t bytes) {
    return (iteration + 1) * 0x9E3779B97F4A7C15ULL ^ (static_cast<std::uint64_t>(bytes) << 17);
}

namespace {

// One hashed 64-bit word per 8 bytes (a mixing function of seed and word index), so filling
// and checking cost a multiply per 8 bytes: cheap enough to validate every message.
std::uint64_t pattern_word(std::uint64_t seed, std::size_t word) {
    std::uint64_t x = seed + static_cast<std::uint64_t>(word) * 0xBF58476D1CE4E5B9ULL;
    x ^= x >> 29;
    x *= 0x94D049BB133111EBULL;
    return x ^ (x >> 32);
}

}  // namespace

std::byte expected_byte(std::uint64_t seed, std::size_t index) {
    return static_cast<std::byte>(pattern_word(seed, index / 8) >> (8 * (index % 8)));
}

void fill_payload(std::span<std::byte> buffer, std::uint64_t seed) {
    const std::size_t words = buffer.size() / 8;
    for (std::size_t w = 0; w < words; ++w) {
        const std::uint64_t value = pattern_word(seed, w);
        std::memcpy(buffer.data() + 8 * w, &value, 8);  // little-endian: byte k is bits 8k..8k+7
    }
    for (std::size_t i = 8 * words; i < buffer.size(); ++i) buffer[i] = expected_byte(seed, i);
}

std::optional<std::size_t> first_mismatch(std::span<const std::byte> buffer, std::uint64_t seed) {
    const std::size_t words = buffer.size() / 8;
    for (std::size_t w = 0; w < words; ++w) {
        std::uint64_t value = 0;
        std::memcpy(&value, buffer.data() + 8 * w, 8);
        if (value == pattern_word(seed, w)) continue;
        for (std::size_t i = 8 * w; i < 8 * w + 8; ++i)
            if (buffer[i] != expected_byte(seed, i)) return i;
    }
    for (std::size_t i = 8 * words; i < buffer.size(); ++i)
        if (buffer[i] != expected_byte(seed, i)) return i;
    return std::nullopt;
}

void flip_one_byte(std::span<std::byte> buffer) {
    if (!buffer.empty()) buffer[buffer.size() / 2] = ~buffer[buffer.size() / 2];
}

}  // namespace shakedown::comm
