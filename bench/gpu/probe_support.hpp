// What the GPU probes take from the product's C++20 layers: their .cu files compile as C++17
// like the product's device code, and src/stats/summary.hpp takes std::span (C++20), so the
// median reaches them through this header (probe_support.cpp calls stats::median).
#pragma once

#include <vector>

namespace shakedown::probe {

// stats::median: the middle value, or the mean of the two middle values for an even count;
// NaN for none.
double median(const std::vector<double>& values);

}  // namespace shakedown::probe
