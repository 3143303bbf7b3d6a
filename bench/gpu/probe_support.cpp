#include "bench/gpu/probe_support.hpp"

#include "stats/summary.hpp"

namespace shakedown::probe {

double median(const std::vector<double>& values) { return stats::median(values); }

}  // namespace shakedown::probe
