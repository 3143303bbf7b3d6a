// Message-size lists and sweeps from parameters, checked: an upside-down range or a size
// that is not a number is bad input, said in one line.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace shakedown::comm {

// "8,1024,65536" -> sizes in bytes. Throws InputError naming `parameter`.
std::vector<std::size_t> parse_size_list(const std::string& text, const std::string& parameter);

// min, min*factor, ... up to and including max (max is appended when the steps miss it).
// Throws InputError when min > max, factor < 2, or a bound is negative.
std::vector<std::size_t> size_sweep(long long min_bytes, long long max_bytes, long long factor);

}  // namespace shakedown::comm
