#include "analysis/rules/health/leader_trace_rules.hpp"

#include "analysis/energy/energy_figures.hpp"
#include "analysis/load/forked_workers.hpp"
#include "analysis/load/trace_archive.hpp"
#include "analysis/rules/health/hidden_fault_rule.hpp"
#include "analysis/rules/health/pkey_rule.hpp"
#include "analysis/rules/health/port_counter_rule.hpp"
#include "telemetry/rdma_port_names.hpp"
#include "telemetry/telemetry_columns.hpp"
#include "trace/trace_reader.hpp"

#include <filesystem>
#include <functional>
#include <iterator>
#include <map>
#include <optional>
#include <span>
#include <string_view>

namespace shakedown::analysis {
namespace {

// What one node leader's trace holds for the rules that judge more than its metrics.
struct LeaderTables {
    std::map<std::string, SampleTable> telemetry;
    std::map<std::string, std::map<std::string, std::string>> attributes;
    std::vector<Event> events;
};

bool is_health_table(std::string_view table) {
    return table.starts_with(telemetry_columns::gpu_health_table_prefix) || table == pcie_aer_table_name;
}

// A GPU's telemetry table ("gpu0": its power and energy) or the host's (its CPU packages'
// energy): what the energy figures read.
bool is_energy_table(std::string_view table) {
    const bool gpu = table.size() > 3 && table.starts_with("gpu") &&
                     table.find_first_not_of("0123456789", 3) == std::string_view::npos;
    return gpu || table == telemetry_columns::host_table;
}

using TableFilter = std::function<bool(std::string_view table)>;

// The tables `wanted` names (and the events, with `events`) of one trace; nothing when it cannot
// be read: an unreadable trace is already a rank problem (incomplete run).
std::optional<LeaderTables> read_leader_tables(const std::filesystem::path& trace_path, const TableFilter& wanted,
                                               bool events) {
    try {
        Trace trace = read_trace(trace_path, {.samples = false,
                                              .telemetry = true,
                                              .inventory = false,
                                              .config = false,
                                              .events = events,
                                              .tests = false,
                                              .telemetry_table = wanted});
        return LeaderTables{std::move(trace.telemetry), std::move(trace.telemetry_attributes), std::move(trace.events)};
    } catch (const std::exception&) {
        return std::nullopt;
    }
}

// The tables (data and attributes) `wanted` names, moved out of `read`; no events.
LeaderTables take_tables(LeaderTables& read, const TableFilter& wanted) {
    LeaderTables taken;
    for (auto& [name, table] : read.telemetry)
        if (wanted(name)) taken.telemetry.emplace(name, std::move(table));
    for (auto& [name, facts] : read.attributes)
        if (wanted(name)) taken.attributes.emplace(name, std::move(facts));
    return taken;
}

// One node's read for the three rules: each rule's tables as its own read would give them; none
// where that read failed.
struct NodeTables {
    std::optional<LeaderTables> ports;
    std::optional<LeaderTables> health;
    std::optional<LeaderTables> energy;
};

// How a reader process hands a node's tables back (load/trace_archive.hpp has the tables' own).
template <class Archive>
void serialize(Archive& archive, LeaderTables& tables) {
    archive(tables.telemetry, tables.attributes, tables.events);
}

template <class Archive>
void serialize(Archive& archive, NodeTables& tables) {
    archive(tables.ports, tables.health, tables.energy);
}

// What one node's read must hold: the rules' tables that run, and the GPU and host tables where
// the node has energy figures.
struct TablesWanted {
    bool ports = false;
    bool health = false;
    bool energy = false;
};

// The tables of the rules that run and the GPU tables, from one read of the leader's trace; a
// trace the joint read fails on is read again part by part, as each rule read it alone (a trace
// whose events are unreadable still has its port counters judged).
NodeTables read_node_tables(const std::filesystem::path& trace_path, TablesWanted want) {
    const TableFilter wanted = [want](std::string_view table) {
        return (want.ports && is_rdma_port_table(table)) || (want.health && is_health_table(table)) ||
               (want.energy && is_energy_table(table));
    };
    NodeTables tables;
    if (std::optional<LeaderTables> all = read_leader_tables(trace_path, wanted, want.health)) {
        // Each part is handed only its own tables, as its own read gave it.
        if (want.ports) tables.ports = take_tables(*all, is_rdma_port_table);
        if (want.health) {
            tables.health = take_tables(*all, is_health_table);
            tables.health->events = std::move(all->events);
        }
        if (want.energy) tables.energy = take_tables(*all, is_energy_table);
    } else {
        if (want.ports) tables.ports = read_leader_tables(trace_path, is_rdma_port_table, false);
        if (want.health) tables.health = read_leader_tables(trace_path, is_health_table, true);
        if (want.energy) tables.energy = read_leader_tables(trace_path, is_energy_table, false);
    }
    return tables;
}

// What the rules found on one node, kept in node order whatever order the reads end in.
struct NodeFindings {
    std::vector<Finding> port_counters;
    std::vector<Finding> hidden_faults;
    std::vector<PortPkeys> pkeys;
    std::vector<EnergyRow> energy;
};

NodeFindings judge_node(const Observations& observations, const NodeRow& node, const NodeTables& tables,
                        const AnalysisSettings& settings, const profile::Profile* profile) {
    NodeFindings found;
    const RankIdentity* leader = observations.rank(node.leader->rank);
    if (tables.ports && leader != nullptr) {
        found.port_counters = port_counter_findings(*leader, tables.ports->telemetry, settings);
        found.pkeys = port_pkeys(leader, tables.ports->attributes);
    }
    if (tables.health)
        found.hidden_faults = hidden_fault_findings(observations, node, tables.health->telemetry, tables.health->attributes,
                                                    tables.health->events, settings, profile);
    if (tables.energy) found.energy = node_energy(observations, node, tables.energy->telemetry, tables.energy->attributes);
    return found;
}

}  // namespace

LeaderTraceFindings leader_trace_findings(const Observations& observations, const AnalysisSettings& settings,
                                          const profile::Profile* profile, int jobs) {
    LeaderTraceFindings found;
    const bool ports = settings.port_counter_rule_enabled();
    const bool health = settings.gpu_health_rule_enabled();
    std::vector<const NodeRow*> nodes;
    std::vector<TablesWanted> wanted;
    for (const NodeRow& node : observations.nodes()) {
        if (node.leader == nullptr) continue;
        const TablesWanted want{ports, health, node_has_energy_figures(observations, node)};
        if (!want.ports && !want.health && !want.energy) continue;
        nodes.push_back(&node);
        wanted.push_back(want);
    }
    std::vector<NodeFindings> per_node(nodes.size());
    auto judge = [&](std::size_t index, const NodeTables& tables) {
        per_node[index] = judge_node(observations, *nodes[index], tables, settings, profile);
    };
    if (jobs <= 1) {
        for (std::size_t index = 0; index < nodes.size(); ++index)
            judge(index, read_node_tables(nodes[index]->leader->trace_path, wanted[index]));
    } else {
        // The reads in forked processes (HDF5 takes one thread at a time), each node's tables
        // judged here as they come and then freed: a fleet's GPU tables never sit in memory together.
        run_forked({.count = nodes.size(),
                    .jobs = jobs,
                    .work =
                        [&](std::size_t index) {
                            return to_archive_bytes(read_node_tables(nodes[index]->leader->trace_path, wanted[index]));
                        },
                    .take =
                        [&](std::size_t index, std::span<const std::uint8_t> bytes) {
                            NodeTables tables;
                            from_archive_bytes(bytes, tables, "a reader's leader tables are malformed");
                            judge(index, tables);
                        },
                    // A reader that died on a trace: as a trace that cannot be read, already a rank problem.
                    .lost = [](std::size_t, const std::string&) {}});
    }
    std::vector<PortPkeys> port_pkeys_seen;
    for (NodeFindings& node : per_node) {
        append(found.port_counters, std::move(node.port_counters));
        append(found.hidden_faults, std::move(node.hidden_faults));
        std::move(node.energy.begin(), node.energy.end(), std::back_inserter(found.energy));
        std::move(node.pkeys.begin(), node.pkeys.end(), std::back_inserter(port_pkeys_seen));
    }
    if (ports) found.pkeys = pkey_findings(port_pkeys_seen);
    return found;
}

}  // namespace shakedown::analysis
