// The run as one flat table, derived once by the loader: who every rank is (node, local rank,
// bound GPU and its UUID), every test result of every readable rank, every metric of every test
// that was not waived, and the nodes with their ranks and telemetry leader. Every rule reads
// these rows instead of walking ranks, traces and tests again. Rows point into the LoadedRun,
// which must outlive the table.
#pragma once

#include "analysis/load/run_data.hpp"
#include "core/result.hpp"

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace shakedown::analysis {

struct RankIdentity {
    int rank = 0;
    std::string node;  // "(unknown node)" when neither run.json nor the trace named one
    int local_rank = 0;
    std::optional<int> gpu;  // the CUDA ordinal as the rank saw it (run.json)
    std::string gpu_uuid;    // the GPU's UUID (run.json), "" when the run did not record one
    std::string gpu_name;    // its model (run.json), "" when not recorded: what calibrated references match
};

// One test result of one rank (waived ones included).
struct TestRow {
    const RankIdentity* who = nullptr;
    const TestResult* test = nullptr;
};

// One metric of a test that ran (not waived) on one rank.
struct MetricRow {
    const RankIdentity* who = nullptr;
    const TestResult* test = nullptr;
    const Metric* metric = nullptr;
};

struct NodeRow {
    std::string name;
    std::vector<int> ranks;             // in rank order
    const RankRecord* leader = nullptr;  // local rank 0, else its first rank with a trace: holds the telemetry
    std::vector<std::size_t> tests;      // its ranks' rows of Observations::tests(), in that order
};

class Observations {
public:
    explicit Observations(const LoadedRun& run);
    Observations(const Observations&) = delete;  // rows point into the table itself
    Observations& operator=(const Observations&) = delete;

    const LoadedRun& run() const { return run_; }
    const std::vector<RankIdentity>& ranks() const { return ranks_; }  // index = rank
    const std::vector<NodeRow>& nodes() const { return nodes_; }       // run.json's order, then traces'
    const std::vector<TestRow>& tests() const { return tests_; }       // rank order, then the order tests ran
    const std::vector<MetricRow>& metrics() const { return metrics_; }

    const RankIdentity* rank(int rank) const;
    // The node row named `name`, nullptr for a name no rank has. With NodeRow::tests, what a rule
    // or report that works node by node reads instead of scanning every rank's rows per node
    // (nodes x ranks: the most of the analysis at 10,240 nodes).
    const NodeRow* node(const std::string& name) const;
    std::vector<const TestRow*> tests_on(const std::string& node) const;
    const TestResult* test_of(int rank, const std::string& key) const;  // the rank's result of `key`

private:
    const LoadedRun& run_;
    std::vector<RankIdentity> ranks_;
    std::vector<NodeRow> nodes_;
    std::map<std::string, std::size_t, std::less<>> node_position_;
    std::vector<TestRow> tests_;
    std::vector<MetricRow> metrics_;
};

inline constexpr const char* unknown_node = "(unknown node)";

// The metric `name` of `test` when its value is finite, else nullptr: what a rule reading one
// figure by its declared name asks.
const Metric* finite_metric(const TestResult& test, std::string_view name);

// A figure of the rank's GPU: the rank has one, and the test did not record running on the host.
bool measured_on_gpu(const RankIdentity& who, const TestResult& test);

// The ranks a job-wide figure was measured over: the test's communicator where it says (a
// collective over the GPUs' owners only), else the run's.
int ranks_measured(const TestResult& test, int world_size);

// Where a test ran as its result records it (the `device` parameter): "gpu", "host", or "" for a
// test that records none (one that runs on one kind of device only).
std::string_view ran_on(const TestResult& test);
// The test recorded that it ran on the host cores (placement/placement_names.hpp).
bool ran_on_host(const TestResult& test);

}  // namespace shakedown::analysis
