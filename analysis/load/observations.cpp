#include "analysis/load/observations.hpp"

#include "comm/communicator_names.hpp"
#include "placement/placement_names.hpp"

#include <cmath>
#include <exception>
#include <map>

namespace shakedown::analysis {

Observations::Observations(const LoadedRun& run) : run_(run) {
    ranks_.reserve(run.ranks.size());
    for (const RankRecord& record : run.ranks)
        ranks_.push_back({record.rank, record.node.empty() ? std::string(unknown_node) : record.node, record.local_rank,
                          record.gpu, record.gpu_uuid, record.gpu_name});

    auto node_row = [&](const std::string& name) -> NodeRow& {
        auto [entry, inserted] = node_position_.emplace(name, nodes_.size());
        if (inserted) nodes_.push_back({name, {}, nullptr, {}});
        return nodes_[entry->second];
    };
    for (const ManifestNode& node : run.manifest.nodes) node_row(node.name);
    for (std::size_t i = 0; i < run.ranks.size(); ++i) {
        const RankRecord& record = run.ranks[i];
        NodeRow& node = node_row(ranks_[i].node);
        node.ranks.push_back(record.rank);
        if (record.trace && (node.leader == nullptr || (node.leader->local_rank != 0 && record.local_rank == 0)))
            node.leader = &record;
        if (!record.trace) continue;
        for (const TestResult& test : record.trace->tests) {
            node.tests.push_back(tests_.size());
            tests_.push_back({&ranks_[i], &test});
            if (test.status == Status::waived) continue;
            for (const Metric& metric : test.metrics) metrics_.push_back({&ranks_[i], &test, &metric});
        }
    }
}

const RankIdentity* Observations::rank(int rank) const {
    if (rank < 0 || static_cast<std::size_t>(rank) >= ranks_.size()) return nullptr;
    return &ranks_[static_cast<std::size_t>(rank)];
}

const NodeRow* Observations::node(const std::string& name) const {
    const auto entry = node_position_.find(name);
    return entry == node_position_.end() ? nullptr : &nodes_[entry->second];
}

std::vector<const TestRow*> Observations::tests_on(const std::string& name) const {
    std::vector<const TestRow*> rows;
    if (const NodeRow* row = node(name))
        for (const std::size_t index : row->tests) rows.push_back(&tests_[index]);
    return rows;
}

const TestResult* Observations::test_of(int rank, const std::string& key) const {
    if (rank < 0 || static_cast<std::size_t>(rank) >= run_.ranks.size()) return nullptr;
    const RankRecord& record = run_.ranks[static_cast<std::size_t>(rank)];
    if (!record.trace) return nullptr;
    for (const TestResult& test : record.trace->tests)
        if (test.key == key) return &test;
    return nullptr;
}

std::string_view ran_on(const TestResult& test) {
    const auto device = test.parameters.find(placement::names::device);
    return device != test.parameters.end() ? std::string_view(device->second) : std::string_view();
}

bool ran_on_host(const TestResult& test) { return ran_on(test) == placement::names::ran_on_host; }

const Metric* finite_metric(const TestResult& test, std::string_view name) {
    for (const Metric& metric : test.metrics)
        if (metric.name == name && std::isfinite(metric.value)) return &metric;
    return nullptr;
}

bool measured_on_gpu(const RankIdentity& who, const TestResult& test) {
    if (who.gpu_name.empty()) return false;
    const auto device = test.parameters.find(placement::names::device);
    return device == test.parameters.end() || device->second == placement::names::ran_on_gpu;
}

int ranks_measured(const TestResult& test, int world_size) {
    const auto found = test.parameters.find(std::string(communicator_names::communicator_ranks));
    if (found == test.parameters.end()) return world_size;
    try {
        return std::stoi(found->second);
    } catch (const std::exception&) {
        return world_size;
    }
}

}  // namespace shakedown::analysis
