#include "analysis/rules/figures/fleet_rule.hpp"

#include "stats/summary.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace shakedown::analysis {
namespace {

// One value of a metric for the fleet: a GPU's rank, or a node's median.
struct UnitValue {
    const RankIdentity* who = nullptr;  // the rank the finding is attributed to (a node unit: its first rank)
    double value = 0.0;
    std::optional<double> nominal;
    int ranks = 1;  // ranks behind a node unit
    std::string test;
};

struct MetricPopulation {
    std::string unit;
    Better better = Better::higher;
    const FleetBand* band = nullptr;
    std::vector<UnitValue> gpu_units;
    std::map<std::string, std::vector<UnitValue>> host_ranks_by_node;
};

// Host ranks of a node collapse into one unit: their median value, attributed to the first rank.
UnitValue node_unit(const std::vector<UnitValue>& ranks) {
    UnitValue unit = ranks.front();
    std::vector<double> values;
    for (const UnitValue& rank : ranks) values.push_back(rank.value);
    unit.value = stats::median(values);
    unit.ranks = static_cast<int>(ranks.size());
    return unit;
}

using FlaggedLevels = std::map<std::pair<int, std::string>, Level>;  // (rank, metric) -> highest level

// Every finite value of every metric with a fleet rule, as GPU units or host ranks by node.
std::map<std::string, MetricPopulation> gather_populations(const Observations& observations, const Thresholds& thresholds) {
    std::map<std::string, MetricPopulation> populations;
    std::map<std::string, const MetricRule*> rules;
    for (const MetricRow& row : observations.metrics()) {
        const Metric& metric = *row.metric;
        auto [rule_entry, inserted] = rules.try_emplace(metric.name, nullptr);
        if (inserted) rule_entry->second = thresholds.rule_for(metric.name);
        const MetricRule* rule = rule_entry->second;
        if (rule == nullptr || !rule->fleet_outlier || !std::isfinite(metric.value)) continue;
        MetricPopulation& population = populations[metric.name];
        population.unit = metric.unit;
        population.better = metric.better;
        population.band = &*rule->fleet_outlier;
        UnitValue value{row.who, metric.value, metric.nominal, 1, row.test->key};
        if (row.who->gpu) population.gpu_units.push_back(std::move(value));
        else population.host_ranks_by_node[row.who->node].push_back(std::move(value));
    }
    return populations;
}

// What the thresholds already said, so the fleet rule does not repeat it at the same level.
FlaggedLevels already_flagged(const std::vector<Finding>& judged) {
    FlaggedLevels flagged;
    for (const Finding& finding : judged)
        if (!finding.metric.empty()) {
            Level& level = flagged[{finding.rank, finding.metric}];
            level = std::max(level, finding.level);
        }
    return flagged;
}

FleetReference reference_of(const std::string& name, const MetricPopulation& population, const std::vector<UnitValue>& group,
                            bool per_gpu) {
    std::vector<double> values;
    std::vector<double> nominals;
    for (const UnitValue& unit : group) {
        values.push_back(unit.value);
        if (unit.nominal) nominals.push_back(*unit.nominal);
    }
    const double median = stats::median(values);
    FleetReference reference{name,    population.unit, population.better,          static_cast<int>(group.size()),
                             per_gpu, median,          stats::mad(values, median), std::nullopt};
    if (!nominals.empty()) reference.nominal = stats::median(nominals);
    return reference;
}

// The units more than k robust sigmas and at least the band's deviation on the bad side of the
// fleet median, unless the thresholds already flagged them at that level.
std::vector<Finding> outlier_findings(const FleetReference& reference, const MetricPopulation& population,
                                      const std::vector<UnitValue>& group, const FlaggedLevels& flagged) {
    std::vector<Finding> findings;
    const double median = reference.median;
    if (median <= 0.0) return findings;
    const FleetBand& band = *population.band;
    const bool lower_is_better = population.better == Better::lower;
    const double sigma = stats::mad_to_sigma * reference.mad;
    const std::string band_text =
        band.fail_deviation
            ? fmt::format("warn from {:.0f} %, fail from {:.0f} % {}", band.warn_deviation * 100, *band.fail_deviation * 100,
                          lower_is_better ? "above" : "below")
            : fmt::format("warn from {:.0f} % {}", band.warn_deviation * 100, lower_is_better ? "above" : "below");
    for (const UnitValue& unit : group) {
        const double deviation = lower_is_better ? (unit.value - median) / median : (median - unit.value) / median;
        const double distance = lower_is_better ? unit.value - median : median - unit.value;
        if (distance <= band.k * sigma || deviation < band.warn_deviation) continue;
        const Level level = band.fail_deviation && deviation >= *band.fail_deviation ? Level::fail : Level::warn;
        if (auto known = flagged.find({unit.who->rank, reference.metric}); known != flagged.end() && known->second >= level)
            continue;
        const std::string sigmas = sigma > 0.0 ? fmt::format("{:.0f} robust sigmas", distance / sigma) : "MAD 0";
        std::string nominal_part;
        if (unit.nominal && *unit.nominal > 0.0)
            nominal_part = fmt::format("; {:.2f} of nominal {}", unit.value / *unit.nominal, format_number(*unit.nominal));
        const std::string whose = reference.per_gpu ? "GPUs"
                                  : unit.ranks > 1  ? fmt::format("nodes; node median of {} ranks", unit.ranks)
                                                    : "nodes";
        Finding finding =
            make_finding(*unit.who, unit.test, level,
                         fmt::format("{} {} is {:.0f} % {} the fleet median {} of {} {} (MAD {}, {}; {}){}",
                                     reference.metric, with_unit(unit.value, population.unit), deviation * 100,
                                     lower_is_better ? "above" : "below", with_unit(median, population.unit), group.size(),
                                     whose, format_number(reference.mad), sigmas, band_text, nominal_part));
        finding.source = FindingSource::fleet;
        finding.metric = reference.metric;
        finding.value = unit.value;
        finding.unit = population.unit;
        finding.nominal = unit.nominal;
        finding.reference = median;
        finding.code = ReasonCode::fleet_outlier;
        const double edge = level == Level::fail ? *band.fail_deviation : band.warn_deviation;
        finding.bound = lower_is_better ? median * (1.0 + edge) : median * (1.0 - edge);
        finding.evidence = Evidence::figure;
        findings.push_back(std::move(finding));
    }
    return findings;
}

}  // namespace

FleetAnalysis analyze_fleet(const Observations& observations, const Thresholds& thresholds,
                            const std::vector<Finding>& judged) {
    if (!thresholds.settings().fleet_rule_enabled()) return {};
    std::map<std::string, MetricPopulation> populations = gather_populations(observations, thresholds);
    const FlaggedLevels flagged = already_flagged(judged);
    FleetAnalysis analysis;
    const int min_peers = thresholds.settings().min_peers();
    for (auto& [name, population] : populations) {
        // A fleet mixing GPU ranks and host-only ranks is judged per GPU; host ranks there are rare
        // (a node whose GPUs were not visible) and judged as nodes among themselves.
        std::vector<UnitValue> host_units;
        for (const auto& [node, ranks] : population.host_ranks_by_node) host_units.push_back(node_unit(ranks));
        for (const auto& [group, per_gpu] : {std::pair{&population.gpu_units, true}, std::pair{&host_units, false}}) {
            if (static_cast<int>(group->size()) < min_peers) continue;
            const FleetReference reference = reference_of(name, population, *group, per_gpu);
            analysis.references.push_back(reference);
            for (Finding& finding : outlier_findings(reference, population, *group, flagged))
                analysis.findings.push_back(std::move(finding));
        }
    }
    return analysis;
}

}  // namespace shakedown::analysis
