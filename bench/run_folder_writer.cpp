#include "bench/run_folder_writer.hpp"

#include "core/errors.hpp"
#include "trace/run_manifest.hpp"
#include "trace/trace_writer.hpp"

#include <fmt/format.h>

#include <fstream>
#include <map>

namespace shakedown::bench {

void write_trace_file(const std::filesystem::path& path, const Trace& trace) {
    TraceWriter writer(path, trace.header, trace.config_yaml, trace.inventory);
    for (const TestResult& test : trace.tests) writer.write_test(test);
    for (const auto& [device, samples] : trace.telemetry) {
        const auto attributes = trace.telemetry_attributes.find(device);
        writer.append_telemetry(device, samples,
                                attributes == trace.telemetry_attributes.end() ? std::map<std::string, std::string>{}
                                                                              : attributes->second);
    }
    for (const Event& event : trace.events) writer.append_event(event);
    if (trace.stalled)  // as the watchdog or the termination handler records it
        writer.try_abort({trace.end_utc, Severity::error, "ended: " + trace.stalled->activity.describe()}, trace.end_utc,
                         std::chrono::milliseconds(0), trace.stalled);
    else if (trace.status != TraceStatus::running)
        writer.finish(trace.status, trace.end_utc);
}

nlohmann::json make_run_json(const std::string& run_id, const std::vector<std::string>& tests,
                             const std::vector<std::string>& node_of_rank, const std::string& status,
                             const std::vector<int>& gpu_of_rank, const std::vector<std::string>& gpu_uuid_of_rank,
                             const std::vector<std::string>& gpu_name_of_rank, TraceLayout layout) {
    RunManifest manifest;
    std::map<std::string, std::size_t> node_index;
    for (std::size_t rank = 0; rank < node_of_rank.size(); ++rank) {
        const std::string& node = node_of_rank[rank];
        auto [entry, inserted] = node_index.emplace(node, manifest.nodes.size());
        if (inserted) manifest.nodes.push_back({node, static_cast<int>(manifest.nodes.size()), {}});
        ManifestNode& node_entry = manifest.nodes[entry->second];
        ManifestRank rank_entry;
        rank_entry.rank = static_cast<int>(rank);
        rank_entry.node = node;
        rank_entry.node_index = node_entry.index;
        rank_entry.local_rank = static_cast<int>(node_entry.ranks.size());
        if (rank < gpu_of_rank.size() && gpu_of_rank[rank] >= 0) rank_entry.gpu = gpu_of_rank[rank];
        if (rank < gpu_uuid_of_rank.size()) rank_entry.gpu_uuid = gpu_uuid_of_rank[rank];
        if (rank < gpu_name_of_rank.size()) rank_entry.gpu_name = gpu_name_of_rank[rank];
        rank_entry.trace_file = trace_path_in(layout, static_cast<int>(rank)).generic_string();
        node_entry.ranks.push_back(static_cast<int>(rank));
        manifest.ranks.push_back(std::move(rank_entry));
    }
    const double start_utc = 1764480000.0;
    manifest.run_id = run_id;
    manifest.shakedown_version = SHAKEDOWN_VERSION;
    manifest.command_line = {"shakedown-synthetic-run"};
    manifest.suite = "synthetic";
    manifest.tests = tests;
    manifest.world_size = static_cast<int>(node_of_rank.size());
    manifest.versions = {{"shakedown", SHAKEDOWN_VERSION}};
    manifest.start_utc = start_utc;
    if (status != "running") manifest.end_utc = start_utc + 600.0;
    manifest.status = status;
    return to_json(manifest);
}

std::filesystem::path trace_path_in(TraceLayout layout, int rank) {
    return layout == TraceLayout::blocks ? trace_relative_path(rank) : std::filesystem::path(default_trace_file_name(rank));
}

void write_run_json(const std::filesystem::path& run_dir, const nlohmann::json& manifest) {
    const std::filesystem::path path = run_dir / run_manifest_file_name;
    if (std::filesystem::exists(path)) throw InputError(fmt::format("{} exists: not overwriting it", path.string()));
    std::ofstream out(path);
    out << manifest.dump(2) << '\n';
    if (!out.flush()) throw InputError(fmt::format("cannot write {}", path.string()));
}

}  // namespace shakedown::bench
