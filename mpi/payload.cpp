#include "mpi/payload.hpp"

namespace shakedown::mpi {

std::uint64_t payload_seed(std::uint64_t iteration, std::size_t bytes) {
    return (iteration + 1) * 0x9E3779B97F4A7C15ULL ^ (static_cast<std::uint64_t>(bytes) << 17);
}

std::byte expected_byte(std::uint64_t seed, std::size_t index) {
    // A multiplicative hash of (seed, index): neighbouring bytes and neighbouring seeds differ.
    std::uint64_t x = seed + static_cast<std::uint64_t>(index) * 0xBF58476D1CE4E5B9ULL;
    x ^= x >> 29;
    x *= 0x94D049BB133111EBULL;
    return static_cast<std::byte>(x >> 56);
}

void fill_payload(std::span<std::byte> buffer, std::uint64_t seed) {
    for (std::size_t i = 0; i < buffer.size(); ++i) buffer[i] = expected_byte(seed, i);
}

std::optional<std::size_t> first_mismatch(std::span<const std::byte> buffer, std::uint64_t seed) {
    for (std::size_t i = 0; i < buffer.size(); ++i)
        if (buffer[i] != expected_byte(seed, i)) return i;
    return std::nullopt;
}

void flip_one_byte(std::span<std::byte> buffer) {
    if (!buffer.empty()) buffer[buffer.size() / 2] = ~buffer[buffer.size() / 2];
}

}  // namespace shakedown::mpi
