#include "analysis/rules/leader_trace_rules.hpp"

#include "analysis/rules/hidden_fault_rule.hpp"
#include "analysis/rules/pkey_rule.hpp"
#include "analysis/rules/port_counter_rule.hpp"
#include "telemetry/rdma_port_names.hpp"
#include "telemetry/telemetry_columns.hpp"
#include "trace/trace_reader.hpp"

#include <filesystem>
#include <iterator>
#include <map>
#include <optional>
#include <string_view>

namespace shakedown::analysis {
namespace {

void append(std::vector<Finding>& findings, std::vector<Finding> more) {
    findings.insert(findings.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
}

// What one node leader's trace holds for the rules that judge more than its metrics.
struct LeaderTables {
    std::map<std::string, SampleTable> telemetry;
    std::map<std::string, std::map<std::string, std::string>> attributes;
    std::vector<Event> events;
};

bool is_health_table(std::string_view table) {
    return table.starts_with(telemetry_columns::gpu_health_table_prefix) || table == pcie_aer_table_name;
}

// The tables `wanted` names (and the events, with `events`) of one trace; nothing when it cannot
// be read: an unreadable trace is already a rank problem (incomplete run).
std::optional<LeaderTables> read_leader_tables(const std::filesystem::path& trace_path,
                                               bool (*wanted)(std::string_view table), bool events) {
    try {
        Trace trace = read_trace(trace_path, {.samples = false, .telemetry = true, .inventory = false, .config = false,
                                              .events = events, .tests = false, .telemetry_table = wanted});
        return LeaderTables{std::move(trace.telemetry), std::move(trace.telemetry_attributes), std::move(trace.events)};
    } catch (const std::exception&) {
        return std::nullopt;
    }
}

// The tables (data and attributes) `wanted` names, moved out of `read`; no events.
LeaderTables take_tables(LeaderTables& read, bool (*wanted)(std::string_view table)) {
    LeaderTables taken;
    for (auto& [name, table] : read.telemetry)
        if (wanted(name)) taken.telemetry.emplace(name, std::move(table));
    for (auto& [name, facts] : read.attributes)
        if (wanted(name)) taken.attributes.emplace(name, std::move(facts));
    return taken;
}


}  // namespace

LeaderTraceFindings leader_trace_findings(const Observations& observations, const AnalysisSettings& settings,
                                          const profile::Profile* profile) {
    LeaderTraceFindings found;
    const bool ports = settings.port_counter_rule_enabled();
    const bool health = settings.gpu_health_rule_enabled();
    if (!ports && !health) return found;
    bool (*const wanted)(std::string_view) =
        ports && health ? [](std::string_view table) { return is_rdma_port_table(table) || is_health_table(table); }
        : ports         ? is_rdma_port_table
                        : is_health_table;
    std::vector<PortPkeys> port_pkeys_seen;
    for (const NodeRow& node : observations.nodes()) {
        if (node.leader == nullptr) continue;
        const RankIdentity* leader = observations.rank(node.leader->rank);
        std::optional<LeaderTables> port_tables;
        std::optional<LeaderTables> health_tables;
        if (std::optional<LeaderTables> both = read_leader_tables(node.leader->trace_path, wanted, health)) {
            // Each rule is handed only its own tables, as its own read gave it.
            if (ports) port_tables = take_tables(*both, is_rdma_port_table);
            if (health) {
                health_tables = take_tables(*both, is_health_table);
                health_tables->events = std::move(both->events);
            }
        } else {
            if (ports) port_tables = read_leader_tables(node.leader->trace_path, is_rdma_port_table, false);
            if (health) health_tables = read_leader_tables(node.leader->trace_path, is_health_table, true);
        }
        if (port_tables && leader != nullptr) {
            append(found.port_counters, port_counter_findings(*leader, port_tables->telemetry, settings));
            std::vector<PortPkeys> mine = port_pkeys(leader, port_tables->attributes);
            std::move(mine.begin(), mine.end(), std::back_inserter(port_pkeys_seen));
        }
        if (health_tables)
            append(found.hidden_faults, hidden_fault_findings(observations, node, health_tables->telemetry,
                                                              health_tables->attributes, health_tables->events, settings,
                                                              profile));
    }
    if (ports) found.pkeys = pkey_findings(port_pkeys_seen);
    return found;
}


}  // namespace shakedown::analysis
