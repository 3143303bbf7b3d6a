#include "analysis/load/run_details.hpp"

#include "trace/trace_reader.hpp"

namespace shakedown::analysis {

const RankRecord* RunDetails::leader_of(const std::string& name) {
    if (!leaders_) {
        leaders_.emplace();
        for (const RankRecord& record : run_.ranks) {
            if (!record.trace) continue;
            auto [entry, inserted] = leaders_->try_emplace(record.node, &record);
            if (!inserted && record.local_rank == 0 && entry->second->local_rank != 0) entry->second = &record;
        }
    }
    const auto leader = leaders_->find(name);
    return leader != leaders_->end() ? leader->second : nullptr;
}

const nlohmann::json& RunDetails::inventory(const std::string& name) {
    if (const RankRecord* leader = leader_of(name); leader != nullptr && leader->inventory_read)
        return leader->trace->inventory;
    return node(name).inventory;
}

const NodeDetails& RunDetails::node(const std::string& name) {
    auto [entry, inserted] = nodes_.try_emplace(name);
    NodeDetails& details = entry->second;
    if (!inserted) return details;
    const RankRecord* leader = leader_of(name);
    if (leader == nullptr) {
        details.problem = "no readable trace on this node";
        return details;
    }
    details.leader_rank = leader->rank;
    try {
        Trace trace = read_trace(leader->trace_path, {.samples = false, .telemetry = true, .inventory = true,
                                                      .config = false, .events = false, .tests = false});
        details.inventory = std::move(trace.inventory);
        details.telemetry = std::move(trace.telemetry);
        details.telemetry_attributes = std::move(trace.telemetry_attributes);
    } catch (const std::exception& failure) {  // TraceError; already reported as a rank problem if it matters
        details.problem = failure.what();
    }
    return details;
}

const TestResult* RunDetails::rank0_result(const std::string& test) const {
    if (run_.ranks.empty() || !run_.ranks.front().trace) return nullptr;
    for (const TestResult& result : run_.ranks.front().trace->tests)
        if (result.key == test) return &result;
    return nullptr;
}

std::optional<SampleTable> RunDetails::rank0_samples(const std::string& test) const {
    if (const auto in_place = rank0_in_place_.find(test); in_place != rank0_in_place_.end()) return in_place->second;
    if (rank0_result(test) == nullptr) return std::nullopt;
    const RankRecord& rank0 = run_.ranks.front();
    try {
        Trace trace = read_trace(rank0.trace_path, {.samples = true, .telemetry = false, .inventory = false,
                                                    .config = false, .events = false});
        for (TestResult& result : trace.tests)
            if (result.key == test) return std::move(result.samples);
    } catch (const std::exception&) {  // the metrics were readable; a damaged samples table only costs localization
    }
    return std::nullopt;
}

std::optional<std::string> RunDetails::rank0_configuration() const {
    if (run_.ranks.empty() || !run_.ranks.front().trace) return std::nullopt;
    try {
        Trace trace = read_trace(
            run_.ranks.front().trace_path,
            {.samples = false, .telemetry = false, .inventory = false, .config = true, .events = false, .tests = false});
        return std::move(trace.config_yaml);
    } catch (const std::exception&) {  // the metrics were readable; the report then says it is not recorded
    }
    return std::nullopt;
}

}  // namespace shakedown::analysis
