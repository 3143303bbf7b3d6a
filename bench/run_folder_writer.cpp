#include "bench/run_folder_writer.hpp"

#include "core/errors.hpp"
#include "trace/trace_writer.hpp"

#include <fmt/format.h>

#include <fstream>
#include <map>

namespace shakedown::bench {

void write_trace_file(const std::filesystem::path& path, const Trace& trace) {
    TraceWriter writer(path, trace.header, trace.config_yaml, trace.inventory);
    for (const TestResult& test : trace.tests) writer.write_test(test);
    for (const auto& [device, samples] : trace.telemetry) writer.append_telemetry(device, samples);
    for (const Event& event : trace.events) writer.append_event(event);
    if (trace.status != TraceStatus::running) writer.finish(trace.status, trace.end_utc);
}

nlohmann::json make_run_json(const std::string& run_id, const std::vector<std::string>& tests,
                             const std::vector<std::string>& node_of_rank, const std::string& status,
                             const std::vector<int>& gpu_of_rank) {
    nlohmann::json nodes = nlohmann::json::array();
    nlohmann::json ranks = nlohmann::json::array();
    std::map<std::string, std::size_t> node_index;
    for (std::size_t rank = 0; rank < node_of_rank.size(); ++rank) {
        const std::string& node = node_of_rank[rank];
        auto [entry, inserted] = node_index.emplace(node, nodes.size());
        if (inserted) nodes.push_back({{"name", node}, {"index", nodes.size()}, {"ranks", nlohmann::json::array()}});
        nlohmann::json& node_entry = nodes[entry->second];
        const int local_rank = static_cast<int>(node_entry["ranks"].size());
        node_entry["ranks"].push_back(rank);
        ranks.push_back({{"rank", rank},
                         {"node", node},
                         {"local_rank", local_rank},
                         {"gpu", rank < gpu_of_rank.size() && gpu_of_rank[rank] >= 0 ? nlohmann::json(gpu_of_rank[rank])
                                                                                     : nlohmann::json(nullptr)},
                         {"trace", fmt::format("rank-{:05d}.h5", rank)}});
    }
    const double start_utc = 1764480000.0;
    return {{"schema_version", "1.0"},
            {"run_id", run_id},
            {"shakedown_version", SHAKEDOWN_VERSION},
            {"command_line", {"shakedown-synthetic-run"}},
            {"suite", "synthetic"},
            {"tests", tests},
            {"tag", ""},
            {"world_size", node_of_rank.size()},
            {"nodes", std::move(nodes)},
            {"ranks", std::move(ranks)},
            {"versions", {{"shakedown", SHAKEDOWN_VERSION}}},
            {"start_utc", start_utc},
            {"end_utc", status == "running" ? nlohmann::json(nullptr) : nlohmann::json(start_utc + 600.0)},
            {"status", status},
            {"slurm", nullptr}};
}

void write_run_json(const std::filesystem::path& run_dir, const nlohmann::json& manifest) {
    const std::filesystem::path path = run_dir / "run.json";
    if (std::filesystem::exists(path)) throw InputError(fmt::format("{} exists: not overwriting it", path.string()));
    std::ofstream out(path);
    out << manifest.dump(2) << '\n';
    if (!out.flush()) throw InputError(fmt::format("cannot write {}", path.string()));
}

}  // namespace shakedown::bench
