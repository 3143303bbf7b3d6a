#include "analysis/rules/apply_rules.hpp"

#include "analysis/rules/confirmation.hpp"
#include "analysis/rules/congestion_rule.hpp"
#include "analysis/rules/credibility_rule.hpp"
#include "analysis/rules/hidden_fault_rule.hpp"
#include "analysis/rules/pkey_rule.hpp"
#include "analysis/rules/port_counter_rule.hpp"
#include "analysis/rules/profile_rule.hpp"
#include "analysis/rules/scheduler_rule.hpp"
#include "analysis/rules/slow_ranks.hpp"
#include "analysis/rules/stall_rule.hpp"
#include "analysis/rules/telemetry_explanation.hpp"
#include "analysis/rules/threshold_rule.hpp"
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

// A finding about a test its rank ran on the host (`device: host`) is the host's, not the GPU
// the rank is bound to: no GPU row in the report, no GPU telemetry as its explanation (an H200
// node's slow host DGEMM was explained by the idle GPU's 390 MHz clock).
void file_host_results_under_the_host(std::vector<Finding>& findings, const Observations& observations) {
    for (Finding& finding : findings) {
        if (!finding.gpu) continue;
        const TestResult* test = observations.test_of(finding.rank, finding.test);
        if (test == nullptr) continue;
        if (ran_on(*test) == "host") {
            finding.gpu.reset();
            finding.gpu_uuid.clear();
        }
    }
}

// What one node leader's trace holds for the rules that judge more than its metrics.
struct LeaderTables {
    std::map<std::string, SampleTable> telemetry;
    std::map<std::string, std::map<std::string, std::string>> attributes;
    std::vector<Event> events;
};

bool is_port_table(std::string_view table) { return table.find(rdma_port_table_infix) != std::string_view::npos; }
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

struct LeaderTraceFindings {
    std::vector<Finding> port_counters;
    std::vector<Finding> hidden_faults;
    std::vector<Finding> pkeys;
};

// The port counter, hidden fault (GPU health, PCIe AER, Xid events) and PKey rules over every
// node, from one read of each leader's trace: each rule reading all the leaders' traces itself
// opened every leader file three times, one after the other in the analyzer, after the load
// (1.0 s of CPU at 16,384 ranks, 2048 leaders). One node at a time, keeping only those tables:
// the GPU tables of a long run are large, and a fleet's worth must not sit in memory together.
// The findings are each rule's own, in its own order. A trace the joint read fails on is read
// again rule by rule, as each rule read it alone (a trace whose events are unreadable still has
// its port counters judged).
LeaderTraceFindings leader_trace_findings(const Observations& observations, const AnalysisSettings& settings,
                                          const profile::Profile* profile) {
    LeaderTraceFindings found;
    const bool ports = settings.port_counter_rule_enabled();
    const bool health = settings.gpu_health_rule_enabled();
    if (!ports && !health) return found;
    bool (*const wanted)(std::string_view) =
        ports && health ? [](std::string_view table) { return is_port_table(table) || is_health_table(table); }
        : ports         ? is_port_table
                        : is_health_table;
    std::vector<PortPkeys> port_pkeys_seen;
    for (const NodeRow& node : observations.nodes()) {
        if (node.leader == nullptr) continue;
        const RankIdentity* leader = observations.rank(node.leader->rank);
        std::optional<LeaderTables> port_tables;
        std::optional<LeaderTables> health_tables;
        if (std::optional<LeaderTables> both = read_leader_tables(node.leader->trace_path, wanted, health)) {
            // Each rule is handed only its own tables, as its own read gave it.
            if (ports) port_tables = take_tables(*both, is_port_table);
            if (health) {
                health_tables = take_tables(*both, is_health_table);
                health_tables->events = std::move(both->events);
            }
        } else {
            if (ports) port_tables = read_leader_tables(node.leader->trace_path, is_port_table, false);
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

}  // namespace

AnalysisResult apply_rules(const Observations& observations, const Thresholds& thresholds, const Observations* baseline,
                           const Topology* topology, RunDetails& details, const profile::Profile* profile) {
    const AnalysisSettings& settings = thresholds.settings();
    AnalysisResult result;
    std::vector<Finding> findings = test_status_findings(observations);
    append(findings, missing_result_findings(observations));
    append(findings, threshold_findings(observations, thresholds));

    FleetAnalysis fleet = analyze_fleet(observations, thresholds, findings);
    result.fleet = std::move(fleet.references);
    append(findings, std::move(fleet.findings));

    if (baseline != nullptr) {
        BaselineComparison comparison = compare_with_baseline(observations, *baseline, settings);
        append(findings, std::move(comparison.findings));
        comparison.findings.clear();
        result.baseline = std::move(comparison);
    }
    if (auto matrix = details.rank0_samples("allpairs")) {
        result.links = localize_links(*matrix, observations, topology, settings.link_bands());
        append(findings, link_findings(*result.links, observations));
    }
    append(findings, slow_rank_findings(observations, settings));
    append(findings, congestion_findings(observations, settings));
    LeaderTraceFindings leader_findings = leader_trace_findings(observations, settings, profile);
    append(findings, std::move(leader_findings.port_counters));
    append(findings, std::move(leader_findings.hidden_faults));
    append(findings, std::move(leader_findings.pkeys));
    append(findings, credibility_findings(observations));
    append(findings, stall_findings(observations));
    append(findings, scheduler_findings(observations));
    if (profile != nullptr) append(findings, profile_findings(observations, *profile, details));

    file_host_results_under_the_host(findings, observations);
    result.explained = explain_findings(findings, observations, details, settings);
    await_confirmation(findings);
    result.judgement = judge(observations, std::move(findings));
    result.confirmation = confirmation_plan(result.judgement, observations);
    return result;
}

}  // namespace shakedown::analysis
