#include "kernels/train/scaling_model.hpp"

#include "stats/summary.hpp"

#include <algorithm>

namespace shakedown::kernels::train {

double allreduce_bus_gbs(double bytes, int ranks, double seconds) {
    if (ranks < 2 || seconds <= 0.0) return 0.0;
    return bytes / seconds * 2.0 * (ranks - 1) / ranks * 1e-9;
}

double allreduce_seconds(double bytes, int ranks, double bus_gbs) {
    if (ranks < 2) return 0.0;
    if (bus_gbs <= 0.0) return 0.0;
    return bytes * 2.0 * (ranks - 1) / ranks / (bus_gbs * 1e9);
}

double overlapped_step_s(const std::vector<double>& ready_s, double compute_s, const std::vector<double>& comm_s) {
    double stream_free = 0.0;
    for (std::size_t bucket = 0; bucket < ready_s.size() && bucket < comm_s.size(); ++bucket)
        stream_free = std::max(stream_free, ready_s[bucket]) + comm_s[bucket];
    return std::max(compute_s, stream_free);
}

std::vector<double> median_per_bucket(const std::vector<std::vector<double>>& per_rank) {
    if (per_rank.empty()) return {};
    std::vector<double> medians(per_rank.front().size());
    for (std::size_t bucket = 0; bucket < medians.size(); ++bucket) {
        std::vector<double> values;
        for (const auto& rank : per_rank) values.push_back(rank.at(bucket));
        medians[bucket] = stats::median(values);
    }
    return medians;
}

}  // namespace shakedown::kernels::train
