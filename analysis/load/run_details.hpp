// What the analysis reads beyond the metrics, only where a finding or a report needs it: rank
// 0's allpairs link matrix, and per node the leader's telemetry and inventory. Loaded lazily
// and kept, so thousands of healthy nodes cost nothing beyond their metrics.
#pragma once

#include "analysis/load/run_data.hpp"
#include "core/result.hpp"

#include <nlohmann/json.hpp>

#include <map>
#include <optional>
#include <string>
#include <utility>

namespace shakedown::analysis {

struct NodeDetails {
    int leader_rank = -1;                          // the rank whose trace holds the node's telemetry
    nlohmann::json inventory;                      // null when unreadable
    std::map<std::string, SampleTable> telemetry;  // "host", "gpu0", ...
    std::map<std::string, std::map<std::string, std::string>> telemetry_attributes;  // per table: "uuid", ...
    std::string problem;                           // why nothing could be read ("" when fine)
};

class RunDetails {
public:
    // `rank0_in_place`: samples that stand in for rank 0's trace's, by test (a confirmation's
    // ring tables, RemeasuredRun::ring_tables).
    explicit RunDetails(const LoadedRun& run, std::map<std::string, SampleTable> rank0_in_place = {})
        : run_(run), rank0_in_place_(std::move(rank0_in_place)) {}

    // The node's leader (local rank 0, else its first rank with a trace), read once.
    const NodeDetails& node(const std::string& name);

    // The leader's inventory alone (what the hardware identity table needs of every node): the
    // one the loader read with the leader's metrics (RunLoadOptions::leader_inventory), else
    // node(name)'s. Null when unreadable or no rank of the node has a trace.
    const nlohmann::json& inventory(const std::string& name);

    // Rank 0's result of `test` as loaded (metrics, parameters; no samples), nullptr where it did not run.
    const TestResult* rank0_result(const std::string& test) const;
    // The samples rank 0 recorded for `test` (allpairs: the whole link matrix), if it ran there.
    std::optional<SampleTable> rank0_samples(const std::string& test) const;
    // The resolved configuration rank 0 recorded (/config), if its trace holds one.
    std::optional<std::string> rank0_configuration() const;

private:
    const RankRecord* leader_of(const std::string& name);

    const LoadedRun& run_;
    std::map<std::string, SampleTable> rank0_in_place_;
    std::map<std::string, NodeDetails> nodes_;
    // Each node's leader, found in one pass over the ranks on the first question (a pass per
    // node was ranks x nodes: 840 M steps at 10,240 nodes x 8).
    std::optional<std::map<std::string, const RankRecord*>> leaders_;
};

}  // namespace shakedown::analysis
