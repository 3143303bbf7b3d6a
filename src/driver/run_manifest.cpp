#include "driver/run_manifest.hpp"

#include "core/clock.hpp"
#include "core/errors.hpp"
#include "core/json_text.hpp"
#include "core/output_file.hpp"
#include "trace/trace_format.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>

namespace shakedown {
namespace {

// One MPI_Barrier's seconds on this rank: the median of `repeats`, after a barrier that brings
// every rank there (so it is the collective's latency, not the ranks' arrival).
double barrier_seconds(MPI_Comm comm, int repeats) {
    MPI_Barrier(comm);
    std::vector<double> seconds;
    for (int i = 0; i < repeats; ++i) {
        const Stopwatch barrier;
        MPI_Barrier(comm);
        seconds.push_back(barrier.seconds());
    }
    std::nth_element(seconds.begin(), seconds.begin() + repeats / 2, seconds.end());
    return seconds[static_cast<std::size_t>(repeats / 2)];
}

std::vector<nlohmann::json> gather_json(const nlohmann::json& mine, MPI_Comm comm) {
    int rank = 0;
    int size = 1;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    const std::string text = json_text(mine);
    const int length = static_cast<int>(text.size());
    std::vector<int> lengths(rank == 0 ? size : 0);
    MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, comm);
    std::vector<int> offsets(lengths.size());
    int total = 0;
    for (std::size_t i = 0; i < lengths.size(); ++i) {
        offsets[i] = total;
        total += lengths[i];
    }
    std::string all(static_cast<std::size_t>(total), '\0');
    MPI_Gatherv(text.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(), MPI_CHAR, 0, comm);
    std::vector<nlohmann::json> out;
    for (std::size_t i = 0; i < lengths.size(); ++i)
        out.push_back(nlohmann::json::parse(all.substr(static_cast<std::size_t>(offsets[i]), static_cast<std::size_t>(lengths[i]))));
    return out;
}

}  // namespace

nlohmann::json slurm_job_info() {
    const auto env = [](const char* name) -> nlohmann::json {
        const char* value = std::getenv(name);
        return value != nullptr ? nlohmann::json(value) : nlohmann::json(nullptr);
    };
    if (std::getenv("SLURM_JOB_ID") == nullptr) return nullptr;
    return {{"job_id", env("SLURM_JOB_ID")},          {"partition", env("SLURM_JOB_PARTITION")},
            {"nodelist", env("SLURM_JOB_NODELIST")},  {"step_id", env("SLURM_STEP_ID")},
            {"num_nodes", env("SLURM_JOB_NUM_NODES")}, {"job_name", env("SLURM_JOB_NAME")}};
}

RunManifest build_manifest(const Session& session, const Config& config, const RunFolder& folder,
                           const std::vector<std::string>& test_keys, const nlohmann::json& versions, double start_utc,
                           const std::string& gpu_uuid, const std::string& gpu_name) {
    const auto& id = session.identity();
    const nlohmann::json mine = {{"rank", session.world_rank()},
                                 {"node", id.node_name},
                                 {"node_index", id.node_index},
                                 {"local_rank", id.local_rank},
                                 {"gpu", session.gpu() ? nlohmann::json(*session.gpu()) : nlohmann::json(nullptr)},
                                 {"gpu_uuid", gpu_uuid},
                                 {"gpu_name", gpu_name}};
    const double barrier_s = barrier_seconds(session.world(), 5);  // ends with every rank here: the gather alone is timed
    const Stopwatch gather;
    const auto ranks = gather_json(mine, session.world());
    RunManifest manifest;
    if (session.world_rank() != 0) return manifest;
    manifest.cost = ManifestCost{.barrier_s = barrier_s, .gather_s = gather.seconds()};

    for (const auto& rank : ranks) {
        ManifestRank entry;
        entry.rank = rank["rank"].get<int>();
        entry.node = rank["node"].get<std::string>();
        entry.node_index = rank["node_index"].get<int>();
        entry.local_rank = rank["local_rank"].get<int>();
        if (rank["gpu"].is_number_integer()) entry.gpu = rank["gpu"].get<int>();
        entry.gpu_uuid = rank["gpu_uuid"].get<std::string>();
        entry.gpu_name = rank["gpu_name"].get<std::string>();
        entry.trace_file = trace_relative_path(entry.rank).generic_string();
        const auto index = static_cast<std::size_t>(entry.node_index);
        while (manifest.nodes.size() <= index) manifest.nodes.push_back({"", static_cast<int>(manifest.nodes.size()), {}});
        manifest.nodes[index].name = entry.node;
        manifest.nodes[index].ranks.push_back(entry.rank);
        manifest.ranks.push_back(std::move(entry));
    }
    manifest.run_id = folder.run_id;
    manifest.run_uuid = folder.run_uuid;
    manifest.shakedown_version = SHAKEDOWN_VERSION;
    manifest.command_line = config.command_line;
    manifest.suite = config.tests.empty() ? config.suite : "";
    manifest.tests = test_keys;
    manifest.tag = config.tag;
    manifest.world_size = session.world_size();
    manifest.versions = versions;
    manifest.start_utc = start_utc;
    manifest.slurm = slurm_job_info();
    return manifest;
}

void write_text_atomically(const std::filesystem::path& path, const std::string& text) {
    write_file_atomically(path, text);  // the reason on failure, no temporary file left behind
}

void write_run_manifest(const RunFolder& folder, RunManifest& manifest, Flush flush) {
    const std::string text = json_text(to_json(manifest), 2) + "\n";
    const Stopwatch write;
    write_file_atomically(folder.path / run_manifest_file_name, text, flush);
    if (manifest.cost && manifest.cost->bytes == 0) {  // the first write: the start's document
        manifest.cost->write_s = write.seconds();
        manifest.cost->bytes = text.size();
    }
}

}  // namespace shakedown
