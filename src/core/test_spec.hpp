// What a test is, declared once and built into every binary whether or not the test's code is:
// its key, suites, parameters, the metrics it reports (name, unit, which way is better), what
// the build must have for it to run, and the checks of its parameters that need no node. The
// driver, `shakedown list`, the config loader, the analyzer (thresholds keys are checked against
// the declared metrics) and the synthetic run all read this one declaration.
#pragma once

#include "core/build_features.hpp"
#include "core/params.hpp"
#include "core/result.hpp"

#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace shakedown {

// Whose figure a metric is. A collective's bandwidth is the whole job's (every rank waits for the
// slowest), so comparing it node by node blames healthy nodes for one slow node: the analyzer's
// baseline compares job-wide metrics once per run (analysis/rules/figures/baseline.hpp).
enum class MetricScope { rank, job };

// What a figure can never exceed: a physical bound the analyzer holds it to, calling a figure above
// it not credible (analysis/rules/figures/credibility_rule.hpp).
enum class PhysicalBound {
    none,
    nominal,       // its nominal is a bound measured or read in the same test (a kernel's bandwidth bound, a line rate)
    node_memory,   // a transfer within the node: the node's memory bandwidth (its host STREAM in the same run)
    node_network,  // a transfer between nodes: its nominal, the node's physical interfaces' and RDMA ports' line rates
};
std::string_view to_string(PhysicalBound bound);  // "none", "nominal", "node_memory", "node_network"

// What a figure's nominal is: the capability the part should deliver (a rate, a bandwidth, a
// count of GPUs), against which the report draws "usable against nominal"; or a tolerance, the
// largest value accepted (an error or residual bound), which the figure is judged against but
// which is no capability to draw as one.
enum class NominalRole { capability, tolerance };
std::string_view to_string(NominalRole role);  // "capability", "tolerance"

struct MetricSpec {
    // "stream.{copy,scale,add,triad,dot}_gbs": each {a,b,...} stands for one of its words, so a
    // declaration names a finite set of metrics.
    std::string name;
    std::string unit;
    Better better = Better::higher;
    std::string description;
    MetricScope scope = MetricScope::rank;
    // The physical bound no correct measurement passes: above it, the bound or the measurement
    // is wrong and the analyzer calls the figure not credible.
    PhysicalBound bound = PhysicalBound::none;
    NominalRole nominal_role = NominalRole::capability;

    std::vector<std::string> names() const;  // every name the pattern stands for
    bool matches(std::string_view metric_name) const;
};

// A figure the report leads with: what a buyer asks of the machine first (FP64 and BF16 rate,
// memory bandwidth, the collective's bus bandwidth). The analyzer loops over these declarations;
// it names no test's figure itself.
struct HeadlineFigure {
    std::string metric;   // one metric name the test declares
    int place = 0;        // where it stands among every test's headline figures (lower first)
    bool charted = true;  // the report's per-node bar charts lead with it (when it has a nominal)
    // The quantity the price table prices per node-hour ("FP64 TFLOP/s"); "" when it is not priced.
    std::string priced_as;
    bool additive = true;  // priced as the sum over a node's ranks (GPUs); false: a job-wide figure, the node's median
};

struct TestSpec {
    std::string key;  // stable snake_case, e.g. "stream"
    std::string description;
    std::vector<std::string> suites;
    std::vector<ParamSpec> parameters;
    std::vector<MetricSpec> metrics;
    std::vector<SampleTable::Column> samples;  // the columns of its sample table (none: no samples)
    std::vector<HeadlineFigure> headline;      // figures the report and the price table lead with
    double default_deadline_s = 300.0;
    // What the binary must be built with for the test to run; a binary without it waives the
    // test with that reason ("this shakedown was built without NCCL"), its parameters still checked.
    std::vector<Feature> needs;
    int min_ranks = 1;  // fewer ranks in the run: waived ("needs at least 2 ranks")
    // Rules that tie parameters together and need no node; throws InputError (the driver's exit
    // 2). The declared kinds, ranges and choices are checked before this is called.
    std::function<void(const TestParams& params, int world_size)> check_parameters;

    const MetricSpec* metric(std::string_view name) const;  // the declaration `name` falls under
    std::vector<std::string> metric_names() const;          // every declared metric name
};

// Unit and direction of every metric from `spec`; a metric the test did not declare, or a sample
// table with other columns than declared, makes the result an error naming it (a bug in the test,
// never a silent figure).
void apply_declarations(const TestSpec& spec, TestResult& result);

}  // namespace shakedown
