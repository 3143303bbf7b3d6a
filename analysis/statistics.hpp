// Robust statistics for fleet references: median and MAD (median absolute deviation), which a
// few broken nodes cannot drag, unlike a mean and a standard deviation.
#pragma once

#include <vector>

namespace shakedown::analysis {

// The median of `values` (the mean of the two middle values for an even count); 0 when empty.
double median_of(std::vector<double> values);

// The median of |v - median|. Multiplied by 1.4826 it estimates a normal distribution's sigma.
double mad_of(const std::vector<double>& values, double median);

inline constexpr double mad_to_sigma = 1.4826;

}  // namespace shakedown::analysis
