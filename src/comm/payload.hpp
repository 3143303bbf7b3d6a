// Message payloads whose every byte is known: a pattern that depends on a seed (built from
// the iteration and the message size), so a stale, truncated or corrupted message is caught
// at the byte where it goes wrong.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

namespace shakedown::comm {

// Seed for one message: differs per iteration and per size, so a message left over from
// an earlier iteration or size never validates.
std::uint64_t payload_seed(std::uint64_t iteration, std::size_t bytes);

std::byte expected_byte(std::uint64_t seed, std::size_t index);
void fill_payload(std::span<std::byte> buffer, std::uint64_t seed);

// Index of the first byte that differs from the pattern, or nothing when all match.
std::optional<std::size_t> first_mismatch(std::span<const std::byte> buffer, std::uint64_t seed);

// The test-only corruption: flips every bit of one byte in the middle of the buffer.
void flip_one_byte(std::span<std::byte> buffer);

}  // namespace shakedown::comm
