#include "ib/latency_stats.hpp"

#include "mpi/statistics.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace shakedown::ib {

LatencyStats latency_stats(std::span<const double> values) {
    if (values.empty()) return {};
    const auto summary = mpi::summarize(values);
    // p99.9 by nearest rank, as mpi::summarize does for p99: the ceil(0.999 n)-th smallest.
    std::vector<double> sorted(values.begin(), values.end());
    const auto rank = static_cast<std::size_t>(std::ceil(0.999 * static_cast<double>(sorted.size())));
    const auto nth = sorted.begin() + static_cast<std::ptrdiff_t>(std::clamp<std::size_t>(rank, 1, sorted.size()) - 1);
    std::nth_element(sorted.begin(), nth, sorted.end());
    return {summary.min, summary.median, summary.mean, summary.p99, *nth};
}

}  // namespace shakedown::ib
