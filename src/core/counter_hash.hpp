// A counter-based hash (splitmix64's finaliser): the same (seed, index) always gives the same
// 64 bits, so any element of a generated matrix, payload or file can be produced again to check
// it, on any rank and in any order.
#pragma once

#include <cstdint>

namespace shakedown {

constexpr std::uint64_t mix64(std::uint64_t x) {
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

}  // namespace shakedown
