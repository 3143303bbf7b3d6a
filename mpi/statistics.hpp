// Order statistics of a set of timings: latency is reported as min, median and p99, never
// only as an average that one scheduler hiccup can move.
#pragma once

#include <span>
#include <vector>

namespace shakedown::mpi {

struct Summary {
    double min = 0.0;
    double median = 0.0;
    double p99 = 0.0;
    double max = 0.0;
    double mean = 0.0;
};

// Nearest-rank percentiles; an empty input gives all zeros.
Summary summarize(std::span<const double> values);
double median(std::vector<double> values);

}  // namespace shakedown::mpi
