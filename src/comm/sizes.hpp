// Message-size lists and sweeps from parameters, checked: an upside-down range or a size
// that is not a number is bad input, said in one line.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace shakedown::comm {

// A declared list of message sizes (each at least 0) as byte counts.
std::vector<std::size_t> byte_sizes(const std::vector<std::int64_t>& sizes);

// The largest single MPI message of bytes (an int count).
inline constexpr std::int64_t largest_message_bytes = 2147483647;

// min, min*factor, ... up to and including max (max is appended when the steps miss it).
// Throws InputError when min > max, factor < 2, or a bound is negative.
std::vector<std::size_t> size_sweep(long long min_bytes, long long max_bytes, long long factor);

}  // namespace shakedown::comm
