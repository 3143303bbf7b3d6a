#include "analysis/rules/links/congestion_localization.hpp"

#include "comm/congestion_ring_columns.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

namespace shakedown::analysis {
namespace {

namespace columns = congestion_ring_columns;

// The distinct nodes a row's figure crosses.
std::set<std::string> crossed(const RingRow& row) { return {row.node, row.previous, row.next}; }

bool touches(const RingRow& row, const std::string& node) {
    return row.node == node || row.previous == node || row.next == node;
}

double judged(const RingRow& row, RingFigure figure) {
    return figure == RingFigure::impact ? row.worst() : row.baseline_slowdown;
}

std::string_view judged_statistic(const RingRow& row, RingFigure figure) {
    return figure == RingFigure::impact ? row.worst_statistic() : "bandwidth_alone";
}

// The upper quartile of the finite positive bandwidths alone, each row's slowdown against it.
void set_baseline_slowdowns(std::vector<RingRow>& rows, const std::vector<double>& baselines) {
    std::vector<double> sorted;
    for (const double value : baselines)
        if (std::isfinite(value) && value > 0) sorted.push_back(value);
    std::sort(sorted.begin(), sorted.end());
    const double reference = sorted.empty() ? std::nan("") : sorted[(3 * (sorted.size() - 1)) / 4];
    for (std::size_t i = 0; i < rows.size(); ++i)
        rows[i].baseline_slowdown = std::isfinite(baselines[i]) && baselines[i] > 0 ? reference / baselines[i]
                                                                                    : std::nan("");
}

}  // namespace

double RingRow::worst() const {
    const bool latency = std::isfinite(latency_p50_impact), bandwidth = std::isfinite(bandwidth_impact);
    if (latency && bandwidth) return std::max(latency_p50_impact, bandwidth_impact);
    if (latency) return latency_p50_impact;
    return bandwidth ? bandwidth_impact : std::nan("");
}

std::string_view RingRow::worst_statistic() const {
    return std::isfinite(bandwidth_impact) && !(latency_p50_impact >= bandwidth_impact) ? "bandwidth" : "latency_p50";
}

std::vector<RingRow> ring_rows(const SampleTable& table, const std::function<std::string(int)>& node_of) {
    const auto index = [&](std::string_view name) { return table.column_index(name); };
    const auto rank = index(columns::rank), ring = index(columns::ring), previous = index(columns::previous_rank),
               next = index(columns::next_rank), base_p50 = index(columns::baseline_latency_p50_us),
               cong_p50 = index(columns::congested_latency_p50_us), base_bw = index(columns::baseline_bandwidth_gbs),
               cong_bw = index(columns::congested_bandwidth_gbs);
    std::vector<RingRow> rows;
    std::vector<double> baselines;
    if (!rank || !ring || !previous || !next || !base_p50 || !cong_p50 || !base_bw || !cong_bw) return rows;
    const auto whole = [](double value) { return std::isfinite(value) && value >= 0 && value < 1e9; };
    for (const auto& values : table.rows()) {
        if (!whole(values[*rank]) || !whole(values[*previous]) || !whole(values[*next]) || !whole(values[*ring])) continue;
        RingRow row;
        row.rank = static_cast<int>(values[*rank]);
        row.ring = static_cast<int>(values[*ring]);
        row.node = node_of(row.rank);
        row.previous = node_of(static_cast<int>(values[*previous]));
        row.next = node_of(static_cast<int>(values[*next]));
        if (row.node.empty() || row.previous.empty() || row.next.empty()) continue;
        // A zero or negative figure gives no finite positive ratio: that statistic is left out.
        const auto ratio = [](double over, double under) {
            return over > 0 && under > 0 && std::isfinite(over) && std::isfinite(under) ? over / under : std::nan("");
        };
        row.latency_p50_impact = ratio(values[*cong_p50], values[*base_p50]);
        row.bandwidth_impact = ratio(values[*base_bw], values[*cong_bw]);
        rows.push_back(std::move(row));
        baselines.push_back(values[*base_bw]);
    }
    set_baseline_slowdowns(rows, baselines);
    return rows;
}

std::vector<RingCulprit> ring_culprits(const std::vector<RingRow>& rows, const std::vector<std::string>& nodes, double warn,
                                       const std::function<bool(const std::string&)>& own_figure_in_band, RingFigure figure,
                                       const std::set<std::string>& preferred) {
    const auto is_degraded = [&](const RingRow& row) { return judged(row, figure) >= warn; };
    std::vector<std::size_t> unexplained;
    for (std::size_t i = 0; i < rows.size(); ++i)
        if (is_degraded(rows[i])) unexplained.push_back(i);
    std::map<std::string, std::size_t> order;
    for (std::size_t i = 0; i < nodes.size(); ++i) order.emplace(nodes[i], i);

    // The share of all figures across each node's links that degraded.
    std::map<std::string, std::pair<int, int>> degraded_of_all;
    for (const RingRow& row : rows)
        for (const std::string& node : crossed(row)) {
            auto& [degraded, all] = degraded_of_all[node];
            ++all;
            if (is_degraded(row)) ++degraded;
        }

    std::vector<std::pair<std::string, std::vector<std::size_t>>> named;  // node, its evidence
    while (true) {
        // (explained, preferred, share, own degraded, -run order) of every node some unexplained figure crosses.
        std::map<std::string, std::pair<int, int>> counts;  // explained, own
        for (const std::size_t i : unexplained)
            for (const std::string& node : crossed(rows[i])) {
                ++counts[node].first;
                if (rows[i].node == node) ++counts[node].second;
            }
        std::optional<std::tuple<int, bool, double, int, long>> best;
        std::string best_node;
        for (const auto& [node, count] : counts) {
            const auto& [degraded, all] = degraded_of_all[node];
            const auto found = order.find(node);
            const long rank_in_run = found == order.end() ? static_cast<long>(nodes.size())
                                                          : static_cast<long>(found->second);
            const std::tuple<int, bool, double, int, long> score{count.first, preferred.contains(node),
                                                                 static_cast<double>(degraded) / all, count.second,
                                                                 -rank_in_run};
            if (!best || score > *best) {
                best = score;
                best_node = node;
            }
        }
        if (!best || std::get<0>(*best) < 2) break;
        std::vector<std::size_t> evidence;
        std::erase_if(unexplained, [&](std::size_t i) {
            if (!touches(rows[i], best_node)) return false;
            evidence.push_back(i);
            return true;
        });
        named.emplace_back(best_node, std::move(evidence));
    }
    for (const std::size_t i : unexplained) {
        const std::string& node = rows[i].node;
        if (!own_figure_in_band(node)) continue;
        const auto already =
            std::find_if(named.begin(), named.end(), [&](const auto& entry) { return entry.first == node; });
        if (already != named.end()) already->second.push_back(i);
        else named.emplace_back(node, std::vector<std::size_t>{i});
    }

    std::vector<RingCulprit> culprits;
    for (auto& [named_node, evidence] : named) {
        // A named local, not the binding: clang 14 (the fuzz build's) cannot capture a structured
        // binding in a lambda.
        const std::string& node = named_node;
        RingCulprit culprit;
        culprit.node = node;
        culprit.common_to_figures = evidence.size() >= 2 || std::any_of(evidence.begin(), evidence.end(),
                                                                        [&](std::size_t i) { return rows[i].node != node; });
        for (const std::size_t i : evidence) culprit.evidence.push_back(rows[i]);
        std::stable_sort(culprit.evidence.begin(), culprit.evidence.end(),
                         [&](const RingRow& a, const RingRow& b) { return judged(a, figure) > judged(b, figure); });
        // The upper median of worst-first figures: index (n - 1) / 2 from the worst.
        const RingRow& typical = culprit.evidence[(culprit.evidence.size() - 1) / 2];
        culprit.impact = judged(typical, figure);
        culprit.statistic = std::string(judged_statistic(typical, figure));
        std::set<std::string> others;
        for (const RingRow& row : culprit.evidence)
            if (row.node != node) others.insert(row.node);
        for (const std::string& n : nodes)
            if (others.contains(n)) culprit.neighbours.push_back(n);
        culprits.push_back(std::move(culprit));
    }
    std::stable_sort(culprits.begin(), culprits.end(), [&](const RingCulprit& a, const RingCulprit& b) {
        const auto at = [&](const std::string& n) {
            const auto f = order.find(n);
            return f == order.end() ? nodes.size() : f->second;
        };
        return at(a.node) < at(b.node);
    });
    return culprits;
}

}  // namespace shakedown::analysis
