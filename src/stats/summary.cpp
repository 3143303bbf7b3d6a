#include "stats/summary.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

namespace shakedown::stats {
namespace {

double median_of_sorted(const std::vector<double>& sorted) {
    const std::size_t n = sorted.size();
    return n % 2 == 1 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
}

double nearest_rank_of_sorted(const std::vector<double>& sorted, double fraction) {
    const auto rank = static_cast<std::size_t>(std::ceil(fraction * static_cast<double>(sorted.size())));
    return sorted[std::clamp<std::size_t>(rank, 1, sorted.size()) - 1];
}

std::vector<double> sorted_copy(std::span<const double> values) {
    std::vector<double> sorted(values.begin(), values.end());
    std::sort(sorted.begin(), sorted.end());
    return sorted;
}

}  // namespace

Summary summarize(std::span<const double> values) {
    if (values.empty()) return {};
    const std::vector<double> sorted = sorted_copy(values);
    Summary summary;
    summary.count = sorted.size();
    summary.min = sorted.front();
    summary.max = sorted.back();
    summary.median = median_of_sorted(sorted);
    summary.p99 = nearest_rank_of_sorted(sorted, 0.99);
    summary.p99_9 = nearest_rank_of_sorted(sorted, 0.999);
    summary.mean = std::accumulate(sorted.begin(), sorted.end(), 0.0) / static_cast<double>(sorted.size());
    return summary;
}

double median(std::span<const double> values) {
    return values.empty() ? no_value : median_of_sorted(sorted_copy(values));
}

double percentile(std::span<const double> values, double fraction) {
    return values.empty() ? no_value : nearest_rank_of_sorted(sorted_copy(values), fraction);
}

double mad(std::span<const double> values, double center) {
    std::vector<double> deviations;
    deviations.reserve(values.size());
    for (const double value : values) deviations.push_back(std::fabs(value - center));
    return median(deviations);
}

}  // namespace shakedown::stats
