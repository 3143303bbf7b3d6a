#include "analysis/export/tidy_rows.hpp"

#include <algorithm>
#include <functional>
#include <map>
#include <string_view>
#include <utility>

namespace shakedown::analysis {

std::string_view level_text(const TidyRow& row) { return row.judged ? to_string(row.level) : "not_judged"; }

void for_each_tidy_row(const Observations& observations, const Judgement& judgement, const JudgedMetrics& judged,
                       const std::function<void(const TidyRow&)>& visit) {
    // A metric's level: its findings' worst (threshold, fleet, calibrated, ...), by rank and name.
    std::map<std::pair<int, std::string_view>, Level> levels;
    for (const NodeVerdict& node : judgement.nodes)
        for (const Finding& finding : node.findings) {
            if (finding.metric.empty()) continue;
            Level& level = levels[{finding.rank, finding.metric}];
            level = std::max(level, finding.level);
        }
    const std::string& run_id = observations.run().manifest.run_id;
    for (const MetricRow& row : observations.metrics()) {
        TidyRow tidy{run_id,           row.who->node,    row.who->rank,      row.who->gpu_uuid, row.test->key,
                     row.metric->name, row.metric->unit, row.metric->value,  row.metric->nominal};
        if (const auto found = levels.find({row.who->rank, std::string_view(row.metric->name)}); found != levels.end()) {
            tidy.level = found->second;
            tidy.judged = true;
        }
        if (judged.contains(row.who->rank, row.metric->name, row.who->gpu.has_value())) {
            tidy.judged = true;
            if (tidy.level == Level::pass) tidy.bound = judged.bound(row.who->rank, row.metric->name);
        }
        visit(tidy);
    }
}

std::vector<TidyRow> tidy_rows(const Observations& observations, const Judgement& judgement, const JudgedMetrics& judged) {
    std::vector<TidyRow> rows;
    rows.reserve(observations.metrics().size());
    for_each_tidy_row(observations, judgement, judged, [&](const TidyRow& row) { rows.push_back(row); });
    return rows;
}

}  // namespace shakedown::analysis
