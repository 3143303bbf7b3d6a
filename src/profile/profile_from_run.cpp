#include "profile/profile_from_run.hpp"

#include "core/errors.hpp"
#include "core/input_file.hpp"
#include "core/input_limits.hpp"
#include "core/json_text.hpp"
#include "hostlist/hostlist.hpp"
#include "profile/node_check.hpp"
#include "trace/run_manifest.hpp"
#include "trace/trace_reader.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace shakedown::profile {
namespace {

RunManifest read_manifest(const std::filesystem::path& run_dir) {
    const auto path = run_dir / run_manifest_file_name;
    const std::string text = read_input_file(path, input_limits::max_run_json_bytes,
                                             fmt::format("{} is not a shakedown run folder: run.json: ", run_dir.string()));
    return parse_run_manifest(parse_json_document(text, fmt::format("{}: run.json: ", run_dir.string())),
                              run_dir.string() + "/");
}

// What a class asks of a node, from one node's facts: the figures it has, rounded down where a
// measured figure varies a little between healthy nodes (memory).
NodeClass class_from(const NodeFacts& facts) {
    NodeClass entry;
    if (!facts.gpus.empty()) {
        entry.gpus_per_node = static_cast<int>(facts.gpus.size());
        entry.gpu.model = facts.gpus.front().name;
        std::optional<double> memory;
        for (const NodeGpu& gpu : facts.gpus) {
            if (gpu.memory_gib) memory = std::min(memory.value_or(*gpu.memory_gib), *gpu.memory_gib);
            if (!gpu.bus_id.empty()) entry.gpu.bus_ids.push_back(gpu.bus_id);
            if (gpu.nvlinks) entry.gpu.nvlinks = std::min(entry.gpu.nvlinks.value_or(*gpu.nvlinks), *gpu.nvlinks);
            if (gpu.pcie_generation_max)
                entry.gpu.pcie_generation = std::min(entry.gpu.pcie_generation.value_or(*gpu.pcie_generation_max), *gpu.pcie_generation_max);
            if (gpu.pcie_width_max)
                entry.gpu.pcie_width = std::min(entry.gpu.pcie_width.value_or(*gpu.pcie_width_max), *gpu.pcie_width_max);
        }
        if (memory) entry.gpu.memory_gib = std::floor(*memory);
        std::sort(entry.gpu.bus_ids.begin(), entry.gpu.bus_ids.end());
    } else {
        entry.gpus_per_node = 0;
    }
    const std::vector<NodePort> active = facts.active_ports();
    if (!active.empty()) {
        entry.hcas.count = static_cast<int>(active.size());
        for (const NodePort& port : active) {
            if (port.rate_gbps) entry.hcas.rate_gbps = std::min(entry.hcas.rate_gbps.value_or(*port.rate_gbps), *port.rate_gbps);
            if (port.mtu) entry.hcas.mtu = port.mtu;
            entry.hcas.link_layer = port.link_layer;
        }
    }
    for (const NodeNic& nic : facts.nics)
        if (nic.up) entry.nics.push_back({nic.name, nic.mtu});
    if (!facts.cpu_model.empty()) entry.cpu_model = facts.cpu_model;
    if (facts.cpu_cores > 0) entry.cpu_cores = facts.cpu_cores;
    if (facts.memory_gib > 0) entry.memory_gib = std::floor(facts.memory_gib);
    return entry;
}

}  // namespace

Profile profile_from_run(const std::filesystem::path& run_dir) {
    const RunManifest manifest = read_manifest(run_dir);
    std::map<std::string, std::string> trace_of_rank;
    for (const ManifestRank& rank : manifest.ranks)
        trace_of_rank[std::to_string(rank.rank)] = rank.trace_file.empty() ? default_trace_file_name(rank.rank) : rank.trace_file;

    // Per node: the leader's facts, and the tests that ran (not waived) on any of its ranks.
    std::map<std::string, NodeClass> class_of_node;
    std::map<std::string, std::set<std::string>> ran_on_node;
    std::vector<std::string> node_order;
    for (const ManifestNode& node : manifest.nodes) {
        if (node.ranks.empty()) continue;
        node_order.push_back(node.name);
        for (const int rank : node.ranks) {
            const auto path = run_dir / trace_of_rank[std::to_string(rank)];
            Trace trace;
            try {
                trace = read_trace(path, {.samples = false, .telemetry = false, .inventory = rank == node.ranks.front(),
                                          .config = false, .events = false});
            } catch (const TraceError& error) {
                throw InputError(fmt::format("{}: {}", run_dir.string(), error.what()));
            }
            if (rank == node.ranks.front()) class_of_node[node.name] = class_from(node_facts(trace.inventory));
            for (const TestResult& test : trace.tests)
                if (test.status != Status::waived) ran_on_node[node.name].insert(test.key);
        }
    }
    if (node_order.empty()) throw InputError(fmt::format("{}: run.json names no node with ranks", run_dir.string()));

    // Nodes with the same hardware form one class; its tests are those that ran on every one of them.
    Profile profile;
    profile.source = run_dir.string();
    std::map<std::string, std::vector<std::string>> nodes_of_class;  // by the class's YAML
    std::vector<std::string> class_order;
    for (const std::string& node : node_order) {
        Profile single;
        single.classes.push_back(class_of_node[node]);
        const std::string key = to_yaml(single);
        if (!nodes_of_class.count(key)) class_order.push_back(key);
        nodes_of_class[key].push_back(node);
    }
    for (const std::string& key : class_order) {
        const auto& nodes = nodes_of_class[key];
        NodeClass entry = class_of_node[nodes.front()];
        entry.nodes = slurm::compress_hostlist(nodes);
        std::set<std::string> common = ran_on_node[nodes.front()];
        for (const std::string& node : nodes) {
            std::set<std::string> both;
            std::set_intersection(common.begin(), common.end(), ran_on_node[node].begin(), ran_on_node[node].end(),
                                  std::inserter(both, both.begin()));
            common = std::move(both);
        }
        for (const std::string& test : manifest.tests)  // in the run's order
            if (common.count(test)) entry.tests.push_back(test);
        const auto names = slurm::expand_hostlist(entry.nodes);
        entry.expanded.insert(names.begin(), names.end());
        profile.classes.push_back(std::move(entry));
    }
    return profile;
}

}  // namespace shakedown::profile
