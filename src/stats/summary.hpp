// Order statistics of a set of measurements, defined once for every test and the analyzer:
// - the median is the middle value, or the mean of the two middle values for an even count;
// - percentiles (p99, p99.9) are by nearest rank, the ceil(f n)-th smallest, as OSU and perftest
//   report them;
// - the MAD (median absolute deviation) is the robust spread the fleet references use;
// - an empty set has no figures: every one is NaN, never a plausible-looking zero (a NaN metric
//   is judged "the measurement produced no number").
#pragma once

#include <cstddef>
#include <limits>
#include <span>

namespace shakedown::stats {

inline constexpr double no_value = std::numeric_limits<double>::quiet_NaN();

struct Summary {
    std::size_t count = 0;
    double min = no_value;
    double median = no_value;
    double mean = no_value;
    double p99 = no_value;
    double p99_9 = no_value;
    double max = no_value;
};

Summary summarize(std::span<const double> values);

double median(std::span<const double> values);
// The ceil(fraction x n)-th smallest value (fraction in (0, 1]).
double percentile(std::span<const double> values, double fraction);
// The median of |value - center|. Times mad_to_sigma it estimates a normal distribution's sigma.
double mad(std::span<const double> values, double center);

inline constexpr double mad_to_sigma = 1.4826;

}  // namespace shakedown::stats
