#include "mpi/statistics.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace shakedown::mpi {
namespace {

double nearest_rank(const std::vector<double>& sorted, double fraction) {
    const auto rank = static_cast<std::size_t>(std::ceil(fraction * static_cast<double>(sorted.size())));
    return sorted[std::clamp<std::size_t>(rank, 1, sorted.size()) - 1];
}

}  // namespace

Summary summarize(std::span<const double> values) {
    if (values.empty()) return {};
    std::vector<double> sorted(values.begin(), values.end());
    std::sort(sorted.begin(), sorted.end());
    Summary summary;
    summary.min = sorted.front();
    summary.max = sorted.back();
    summary.median = nearest_rank(sorted, 0.5);
    summary.p99 = nearest_rank(sorted, 0.99);
    summary.mean = std::accumulate(sorted.begin(), sorted.end(), 0.0) / static_cast<double>(sorted.size());
    return summary;
}

double median(std::vector<double> values) { return summarize(values).median; }

}  // namespace shakedown::mpi
