// Latency as perftest reports it: min, median, average, p99 and p99.9 (microseconds). The
// first four come from the MPI family's order statistics; p99.9 is added here.
#pragma once

#include <span>

namespace shakedown::ib {

struct LatencyStats {
    double min = 0.0;
    double median = 0.0;
    double average = 0.0;
    double p99 = 0.0;
    double p99_9 = 0.0;
};

// Nearest-rank percentiles; an empty input gives all zeros.
LatencyStats latency_stats(std::span<const double> values);

}  // namespace shakedown::ib
