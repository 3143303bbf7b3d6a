// One model of what the reports say, built once from the rules' result: the verdict row of every
// node, its findings in the order they are worth reading (FAIL before WARN; localization, then
// what the telemetry explains, then the rest), how a finding and a rank list are labelled, the
// lines of the localization, waiver, incomplete, baseline and price sections, the per-node
// figures and the price. Terminal, markdown, HTML, JUnit and summary.json render this one model
// (as google/benchmark's reporters render one vector of runs).
#pragma once

#include "analysis/load/observations.hpp"
#include "analysis/report/energy_section.hpp"
#include "analysis/report/fp64_capability.hpp"
#include "analysis/report/node_metrics.hpp"
#include "analysis/report/price_report.hpp"
#include "analysis/report/rent_or_buy.hpp"
#include "analysis/report/workload_section.hpp"
#include "analysis/rules/model/apply_rules.hpp"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace shakedown::analysis {

// One test on one node, over its ranks (what a JUnit test case is).
struct TestCaseRow {
    std::string test;
    double seconds = 0.0;  // the longest rank's duration
    int ranks = 0;         // ranks with a result of any status
    int waived_ranks = 0;
    std::string waiver;    // a waived rank's reason
    std::vector<const Finding*> failures;  // hardware
    std::vector<const Finding*> errors;    // configuration or software: to fix
    std::vector<const Finding*> warnings;
    bool all_waived() const { return ranks > 0 && waived_ranks == ranks; }
};

// One GPU of a node (the rank bound to it): a node is judged as its devices are, so a bad GPU
// gets a row of its own instead of hiding in the node's median.
struct DeviceRow {
    int rank = 0;
    int gpu = 0;            // the CUDA ordinal as the rank saw it
    std::string gpu_uuid;
    Verdict verdict = Verdict::pass;  // pass, warn or fail, from this rank's hardware findings
    std::string worst;      // its worst finding's reason, "-" without one
};

// A link between two nodes that a link matrix found slow (one direction of it, where only one
// is): a link is no GPU and, where the link itself is at fault, not either node, so it has a
// verdict row of its own.
struct LinkRow {
    std::string matrix;  // the matrix it was found in: "allpairs", "tcp_bandwidth eth0"
    std::string link;    // "node0001<->node0002", or the slow direction "node0001->node0002"
    Verdict verdict = Verdict::warn;
    double gbs = 0.0;    // its figure: the median (of the slow direction, where one)
    double ratio = 1.0;  // of its reference
    Confirmation confirmation = Confirmation::not_needed;
    std::string reason;  // the finding's, as on its ends' rows
};

struct NodeReport {
    const NodeVerdict* verdict = nullptr;
    std::string ranks;          // "0-3,8"
    std::string worst;          // the worst finding's reason, else the first problem line, else "-"
    std::string worst_with_rank;  // "rank 8 dgemm_fp64: <reason>" (terminal)
    std::vector<const Finding*> findings;  // most telling first
    std::vector<TestCaseRow> cases;        // in the order the tests first appear
    std::vector<DeviceRow> devices;        // one per rank with a GPU, in rank order
};

struct ReportModel {
    const Observations* observations = nullptr;
    const LoadedRun* run = nullptr;
    const AnalysisResult* result = nullptr;
    std::string title;         // "shakedown run <run id>"
    std::string overview;      // "suite quick, 2 rank(s) on 1 node(s), status complete"
    std::map<Verdict, int> nodes_by_verdict;
    std::string verdict_line;  // "Verdict: FAIL: 4 node(s): 3 pass, 0 warn, 1 fail, 0 incomplete"
    std::vector<NodeReport> nodes;
    std::vector<LinkRow> links;            // slow links, every matrix, in the order found
    std::vector<const Finding*> failures;  // hardware FAILs: node order, most telling first within a node
    std::vector<const Finding*> to_fix;    // configuration and software FAILs: not the hardware's
    std::vector<const Finding*> warnings;
    std::vector<std::string> fix_lines;    // "configuration: node0001 rank 3 stream: ..." per to_fix finding
    std::vector<std::string> localization_lines;
    std::vector<std::string> hidden_fault_lines;  // per node: each health counter, state or Xid a rule judged
    // Confirm before drain: what awaits a confirmation run and how to make it, or what the
    // confirmation run confirmed and did not reproduce.
    std::vector<std::string> confirmation_lines;
    std::vector<std::string> waiver_lines;     // one per test and reason, with the ranks
    std::vector<std::string> incomplete_lines;
    std::optional<std::string> baseline_line;
    // The baseline section: baseline_line, then one line per job-wide metric the run regressed on
    // (rules/figures/baseline.hpp: compared once for the run, no node's); empty without a baseline.
    std::vector<std::string> baseline_lines;
    std::vector<NodeMetrics> node_metrics;
    std::optional<PriceReport> price;
    std::vector<std::string> price_lines;
    Fp64Capability fp64;
    Fp64Table fp64_table;
    std::vector<std::string> fp64_lines;
    Workload workload;
    WorkloadTable workload_devices;
    WorkloadTable workload_scaling;
    WorkloadTable workload_science;
    std::vector<std::string> workload_lines;
    std::optional<RentOrBuy> rent_or_buy;  // with --ownership and a node price
    std::vector<EnergyRow> energy;  // the rules' energy figures (energy/energy_figures.hpp)
    WorkloadTable energy_table;
    std::vector<std::string> energy_lines;
};

ReportModel make_report_model(const Observations& observations, const AnalysisResult& result, const AnalysisSettings& settings);

// "node0002 rank 8 GPU 0 dgemm_fp64": who a finding is about.
std::string finding_label(const Finding& finding);
// The label and the reason in one line.
std::string describe_finding(const Finding& finding);
// "0-3,8,10-11": the compact form of a sorted rank list.
std::string compact_rank_list(const std::vector<int>& ranks);
std::string upper(std::string_view text);

}  // namespace shakedown::analysis
