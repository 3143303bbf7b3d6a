#include "analysis/rules/model/judged_metrics.hpp"

namespace shakedown::analysis {

void JudgedMetrics::add(int rank, std::string_view metric, std::optional<double> bound) {
    auto& metrics = by_rank_[rank];
    const auto found = metrics.find(metric);
    if (found == metrics.end()) metrics.emplace(std::string(metric), bound);
    else if (!found->second) found->second = bound;
}

void JudgedMetrics::add_fleet(std::string_view metric, bool per_gpu) { fleet_.emplace(std::string(metric), per_gpu); }

bool JudgedMetrics::contains(int rank, std::string_view metric, bool on_gpu) const {
    if (const auto ranks = by_rank_.find(rank); ranks != by_rank_.end() && ranks->second.contains(metric)) return true;
    return fleet_.contains({std::string(metric), on_gpu});
}

std::optional<double> JudgedMetrics::bound(int rank, std::string_view metric) const {
    const auto ranks = by_rank_.find(rank);
    if (ranks == by_rank_.end()) return std::nullopt;
    const auto found = ranks->second.find(metric);
    return found == ranks->second.end() ? std::nullopt : found->second;
}

}  // namespace shakedown::analysis
