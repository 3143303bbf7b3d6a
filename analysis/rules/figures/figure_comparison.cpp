#include "analysis/rules/figures/figure_comparison.hpp"

#include "core/registry.hpp"
#include "placement/placement_names.hpp"
#include "stats/summary.hpp"

#include <algorithm>
#include <cmath>
#include <tuple>

namespace shakedown::analysis {
namespace {

// A unit of "rank" marks an identifier (mpi_coll.slowest_rank names the world rank).
bool is_identifier(const ComparedValue& value) { return value.unit == "rank"; }

// How much worse NEW is than OLD in the figure's direction, as a fraction of OLD (negative:
// better); from an OLD of 0 any change is infinitely far.
double worse_fraction(double old_value, double new_value, Better better) {
    if (new_value == old_value) return 0.0;
    const double relative = old_value != 0.0 ? (new_value - old_value) / std::fabs(old_value)  // + is higher
                                             : (new_value > old_value ? 1.0 : -1.0) * INFINITY;
    return better == Better::higher ? -relative : relative;
}

Change classify(double worse, double tolerance) {
    if (worse > tolerance) return Change::worse;
    if (worse < -tolerance) return Change::better;
    return Change::same;
}

// Which row a value belongs to: its scope, where, and the metric.
using RowKey = std::tuple<ComparedAs, std::string, int, std::string>;  // as, node or GPU UUID, local rank, metric

// The spec lookup expands every declaration's pattern: asked once per (test, metric).
class ScopeCache {
public:
    bool job_wide(const std::string& test, const std::string& metric) {
        auto [entry, inserted] = known_.try_emplace({test, metric}, false);
        if (inserted) entry->second = is_job_wide(test, metric);
        return entry->second;
    }

private:
    std::map<std::pair<std::string, std::string>, bool> known_;
};

struct Side {
    std::vector<double> values;
    std::optional<std::size_t> index;  // the last value's index in its input
};

struct Row {
    FigureChange header;  // scope, names, where
    Side old_side, new_side;
};

// The rows of one run's values, in first-appearance order.
void collect(const std::vector<ComparedValue>& values, bool is_new, ScopeCache& scopes, std::vector<RowKey>& order,
             std::map<RowKey, Row>& rows) {
    for (std::size_t i = 0; i < values.size(); ++i) {
        const ComparedValue& value = values[i];
        if (!std::isfinite(value.value) || is_identifier(value)) continue;
        ComparedAs as = ComparedAs::rank;
        if (scopes.job_wide(value.test, value.metric)) as = ComparedAs::job;
        else if (!value.gpu_uuid.empty()) as = ComparedAs::gpu;
        const RowKey key = as == ComparedAs::job   ? RowKey{as, "", 0, value.metric}
                           : as == ComparedAs::gpu ? RowKey{as, value.gpu_uuid, 0, value.metric}
                                                   : RowKey{as, value.node, value.local_rank, value.metric};
        auto [entry, inserted] = rows.try_emplace(key);
        Row& row = entry->second;
        // NEW is collected first, so a GPU's row names the node it sits in now.
        if (inserted) {
            order.push_back(key);
            row.header = {.as = as, .test = value.test, .metric = value.metric, .unit = value.unit, .better = value.better};
            if (as != ComparedAs::job) row.header.node = value.node;
            if (as == ComparedAs::rank) row.header.local_rank = value.local_rank;
            if (as == ComparedAs::gpu) row.header.gpu_uuid = value.gpu_uuid;
        }
        Side& side = is_new ? row.new_side : row.old_side;
        side.values.push_back(value.value);
        side.index = i;
    }
}

}  // namespace

std::string_view to_string(Change change) {
    switch (change) {
    case Change::worse: return "worse";
    case Change::better: return "better";
    case Change::same: return "same";
    case Change::added: return "new";
    case Change::missing: return "missing";
    }
    return "?";
}

std::string_view to_string(ComparedAs as) {
    switch (as) {
    case ComparedAs::job: return "job";
    case ComparedAs::gpu: return "gpu";
    case ComparedAs::rank: return "rank";
    }
    return "?";
}

bool measured_by_its_gpu(const RankIdentity& who, const TestResult& test) {
    if (who.gpu_uuid.empty()) return false;
    const std::string_view where = ran_on(test);
    if (!where.empty()) return where == placement::names::ran_on_gpu;
    const Test* declared = Registry::instance().find(test.key);
    if (declared == nullptr) return false;
    const auto& needs = declared->spec().needs;
    return std::find(needs.begin(), needs.end(), Feature::cuda) != needs.end();
}

bool is_job_wide(const std::string& test, const std::string& metric) {
    const Test* declared = Registry::instance().find(test);
    const MetricSpec* spec = declared != nullptr ? declared->spec().metric(metric) : nullptr;
    return spec != nullptr && spec->scope == MetricScope::job;
}

std::vector<FigureChange> compare_figures(const std::vector<ComparedValue>& old_values,
                                          const std::vector<ComparedValue>& new_values, double tolerance) {
    ScopeCache scopes;
    std::vector<RowKey> new_order, old_order;
    std::map<RowKey, Row> rows;
    collect(new_values, true, scopes, new_order, rows);
    collect(old_values, false, scopes, old_order, rows);
    std::vector<FigureChange> changes;
    auto finish = [&](const RowKey& key) {
        Row& row = rows.at(key);
        FigureChange change = row.header;
        change.old_values = static_cast<int>(row.old_side.values.size());
        change.new_values = static_cast<int>(row.new_side.values.size());
        // One value per rank or GPU; a job row's figure is the median over the ranks.
        if (!row.old_side.values.empty()) change.old_value = stats::median(row.old_side.values);
        if (!row.new_side.values.empty()) change.new_value = stats::median(row.new_side.values);
        if (change.as != ComparedAs::job) change.new_index = row.new_side.index;
        if (change.old_value && change.new_value) {
            const double worse = worse_fraction(*change.old_value, *change.new_value, change.better);
            change.change = classify(worse, tolerance);
            if (*change.old_value != 0.0) change.worse_by = worse;
        } else {
            change.change = change.new_value ? Change::added : Change::missing;
        }
        changes.push_back(std::move(change));
    };
    for (const RowKey& key : new_order) finish(key);
    for (const RowKey& key : old_order)
        if (rows.at(key).new_side.values.empty()) finish(key);
    return changes;
}

}  // namespace shakedown::analysis
