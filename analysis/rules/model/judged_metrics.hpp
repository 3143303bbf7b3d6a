// Which measured figures a rule compared with something, and the bound each one met: what lets
// the values table and the exports call a figure PASS. A figure no rule compared (no threshold,
// no nominal for its band, no calibrated figure, too few peers for the fleet rule) is "not
// judged", never a pass. Filled by the threshold rule (each figure its rule checked, with the
// band's edge it met) and the fleet rule (every figure of a metric that has a fleet reference, on
// the kind of unit the reference is over); a figure with a WARN or FAIL finding is judged too.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>

namespace shakedown::analysis {

class JudgedMetrics {
public:
    // `bound`: the edge of the tightest band the figure was held to, in its unit (none for a
    // check with no single edge, such as a figure that must be a number).
    void add(int rank, std::string_view metric, std::optional<double> bound);
    // Every figure of `metric` on a GPU's rank (`per_gpu`) or on a host rank.
    void add_fleet(std::string_view metric, bool per_gpu);

    bool contains(int rank, std::string_view metric, bool on_gpu) const;
    std::optional<double> bound(int rank, std::string_view metric) const;

private:
    std::map<int, std::map<std::string, std::optional<double>, std::less<>>> by_rank_;
    std::set<std::pair<std::string, bool>> fleet_;  // (metric, per_gpu)
};

}  // namespace shakedown::analysis
