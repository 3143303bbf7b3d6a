#include "analysis/history/run_record.hpp"

#include "analysis/load/run_loader.hpp"
#include "analysis/rules/figures/figure_comparison.hpp"
#include "analysis/rules/health/hidden_fault_rule.hpp"
#include "analysis/rules/model/finding.hpp"
#include "telemetry/telemetry_columns.hpp"

#include <fmt/format.h>

#include <cmath>
#include <map>
#include <string_view>
#include <tuple>

namespace shakedown::analysis {
namespace {

namespace health = telemetry_columns::gpu_health;

// The health table's columns that count something (or flag a state) and so can rise from one run
// to the next, each rise for the worse; the link counts and fabric state are states the rule
// judges within a run, and of the remap bank histogram only the banks with little or no spare
// rows left count (the others fall as banks use up their spares).
constexpr std::string_view gpu_counters[] = {health::ecc_sbe_volatile,
                                             health::ecc_dbe_volatile,
                                             health::ecc_sbe_aggregate,
                                             health::ecc_dbe_aggregate,
                                             health::retired_pages_sbe,
                                             health::retired_pages_dbe,
                                             health::retired_pages_pending,
                                             health::remap_corrected,
                                             health::remap_uncorrected,
                                             health::remap_pending,
                                             health::remap_failure,
                                             health::remap_bank_low,
                                             health::remap_bank_none,
                                             health::pcie_replay,
                                             health::nvlink_replay,
                                             health::nvlink_recovery,
                                             health::nvlink_crc,
                                             health::xid_count};

constexpr std::string_view aer_column_infix = ".aer_";  // "<bdf>.aer_<kind>" (telemetry/pcie_aer_telemetry.hpp)

// The first and last finite reading of a column, if any.
std::optional<std::pair<double, double>> first_and_last(const SampleTable& table, std::string_view column) {
    const auto index = table.column_index(column);
    if (!index) return std::nullopt;
    std::optional<std::pair<double, double>> span;
    for (const auto& row : table.rows()) {
        const double value = row[*index];
        if (!std::isfinite(value)) continue;
        if (!span) span.emplace(value, value);
        span->second = value;
    }
    return span;
}

std::string unit_of(const SampleTable& table, std::string_view column) {
    for (const auto& c : table.columns())
        if (c.name == column) return c.unit;
    return {};
}

void add_counters(const std::string& node, const NodeDetails& details, std::vector<CounterReading>& out) {
    for (const auto& [name, table] : details.telemetry) {
        if (name.starts_with(telemetry_columns::gpu_health_table_prefix)) {
            std::string device = name;
            if (const auto facts = details.telemetry_attributes.find(name); facts != details.telemetry_attributes.end())
                if (const auto uuid = facts->second.find(std::string(health::gpu_uuid_attribute));
                    uuid != facts->second.end() && !uuid->second.empty())
                    device = uuid->second;
            for (std::string_view counter : gpu_counters)
                if (const auto span = first_and_last(table, counter))
                    out.push_back({node, device, std::string(counter), unit_of(table, counter), span->first, span->second});
        } else if (name == pcie_aer_table_name) {
            for (const auto& column : table.columns()) {
                const auto at = column.name.rfind(aer_column_infix);
                if (at == std::string::npos) continue;
                if (const auto span = first_and_last(table, column.name))
                    out.push_back({node, column.name.substr(0, at), column.name.substr(at + 1), column.unit, span->first,
                                   span->second});
            }
        }
    }
}

using ValueKey = std::tuple<int, std::string, std::string>;  // rank, test, metric ("" for the test itself)

std::map<ValueKey, Level> worst_levels(const Judgement& judgement) {
    std::map<ValueKey, Level> worst;
    for (const NodeVerdict& node : judgement.nodes)
        for (const Finding& finding : node.findings) {
            Level& level = worst.try_emplace({finding.rank, finding.test, finding.metric}, Level::pass).first->second;
            level = std::max(level, finding.level);
        }
    return worst;
}

}  // namespace

std::string run_identity(const RunManifest& manifest) {
    if (!manifest.run_uuid.empty()) return manifest.run_uuid;
    return fmt::format("{}@{:.3f}", manifest.run_id, manifest.start_utc);
}

RunRecord make_run_record(const Observations& observations, const Judgement* judgement, RunDetails& details) {
    const RunManifest& manifest = observations.run().manifest;
    RunRecord record;
    record.identity = run_identity(manifest);
    record.run_id = manifest.run_id;
    record.run_uuid = manifest.run_uuid;
    record.start_utc = manifest.start_utc;
    record.end_utc = manifest.end_utc;
    record.suite = manifest.suite;
    record.shakedown_version = manifest.shakedown_version;
    record.run_dir = observations.run().dir.string();
    record.status = manifest.status;
    if (judgement != nullptr) {
        record.verdict = std::string(to_string(judgement->overall));
        for (const NodeVerdict& node : judgement->nodes)
            record.nodes.push_back({node.node, std::string(to_string(node.verdict))});
    } else {
        for (const NodeRow& node : observations.nodes()) record.nodes.push_back({node.name, ""});
    }

    const std::map<ValueKey, Level> levels = judgement != nullptr ? worst_levels(*judgement) : std::map<ValueKey, Level>{};
    auto level_of = [&](int rank, const std::string& test, const std::string& metric) -> std::string {
        if (judgement == nullptr) return {};
        // A finding on the metric, or on the test itself (it failed, errored): the worse of them.
        Level level = Level::pass;
        for (const std::string& name : {metric, std::string()})
            if (const auto found = levels.find({rank, test, name}); found != levels.end())
                level = std::max(level, found->second);
        return std::string(to_string(level));
    };
    for (const MetricRow& row : observations.metrics()) {
        const Metric& metric = *row.metric;
        const bool on_gpu = measured_by_its_gpu(*row.who, *row.test);  // else the figure is the host's
        record.values.push_back({.node = row.who->node,
                                 .rank = row.who->rank,
                                 .local_rank = row.who->local_rank,
                                 .gpu = row.who->gpu,
                                 .gpu_uuid = on_gpu ? row.who->gpu_uuid : std::string(),
                                 .test = row.test->key,
                                 .metric = metric.name,
                                 .unit = metric.unit,
                                 .value = metric.value,
                                 .nominal = metric.nominal,
                                 .better = metric.better,
                                 .level = level_of(row.who->rank, row.test->key, metric.name)});
    }
    for (const NodeRow& node : observations.nodes())
        if (node.leader != nullptr) add_counters(node.name, details.node(node.name), record.counters);
    return record;
}

RunRecord read_run_record(const std::filesystem::path& run_dir) {
    const LoadedRun run = load_run(run_dir);
    const Observations observations(run);
    RunDetails details(run);
    return make_run_record(observations, nullptr, details);
}

}  // namespace shakedown::analysis
