// RUN/run.json: what rank 0 knows about the whole run (command line, suite, nodes and ranks with
// their GPUs, versions, Slurm job, start and end, status). One value and one mapping to and
// from JSON, so the driver and the synthetic run write what the analyzer reads; the keys live
// in run_manifest.cpp only.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace shakedown {

inline constexpr const char* run_manifest_file_name = "run.json";

// run.json's own schema version. 1.0 and 1.1 were the trace's (trace_schema_version); 1.2 puts the
// traces in sub-folders (ranks[].trace a relative path, trace_relative_path below) and adds
// manifest_cost. The HDF5 trace itself did not change (still 1.1). A reader of 1.1 refuses a 1.2
// run.json's sub-folder path with one line ("is not a plain file name"), never reads elsewhere.
inline constexpr const char* run_manifest_schema_version = "1.2";

// Where the traces lie: RUN/traces/<first>-<last>/rank-NNNNN.h5, one folder per block of
// ranks_per_trace_folder consecutive ranks. A flat RUN/ held 81,920 files at 10,240 nodes x 8, and a
// parallel file system's metadata server serialises creates and lookups per folder. Blocks of
// ranks, not a folder per node: both levels stay bounded (<= 1,000 files per block, 82 blocks at
// 81,920 ranks, 1,049 at max_world_size), where per node traces/ itself would hold 10,240 folders;
// the path follows from the rank alone, so a rank run.json does not list is still found, and no
// host name (text a node reports) becomes part of a path; and rank 0 makes the few folders before
// any rank writes, instead of every rank racing to make its node's.
inline constexpr int ranks_per_trace_folder = 1000;
inline constexpr const char* trace_folder_name = "traces";

struct ManifestNode {
    std::string name;
    int index = 0;
    std::vector<int> ranks;
};

struct ManifestRank {
    int rank = 0;
    std::string node;
    int node_index = 0;
    int local_rank = 0;
    std::optional<int> gpu;  // the CUDA ordinal the rank was bound to, as the rank saw it
    std::string gpu_uuid;    // that GPU's UUID ("" without one): names it under any visibility
    std::string gpu_name;    // its model as the driver names it ("NVIDIA H200"): what calibrated references match
    // Its trace, relative to the run folder: "traces/00000-00999/rank-00042.h5", or a plain
    // "rank-00042.h5" in a run written before run.json 1.2 (the flat layout). Never absolute, never "..".
    std::string trace_file;
};

// What rank 0's run.json cost at the start of the run (docs/benchmarks.md "The run side at
// scale"): one MPI_Barrier over the world (the median of a few, all ranks present: the latency each
// test's start barrier pays at least), the gather of every rank's entry (MPI_Gather + MPI_Gatherv,
// O(ranks) bytes at rank 0) and the atomic write of the document (bytes). Absent before run.json 1.2.
struct ManifestCost {
    double barrier_s = 0.0;
    double gather_s = 0.0;
    double write_s = 0.0;
    std::uint64_t bytes = 0;
};

struct RunManifest {
    std::string run_id;    // the run folder's name
    std::string run_uuid;  // random, unique to the run, in every trace too ("" in a run.json before 1.1)
    std::string shakedown_version;
    std::vector<std::string> command_line;
    std::string suite;  // empty when the run named its tests
    std::vector<std::string> tests;
    std::string tag;
    std::string profile;  // the expected profile's file in the run folder ("profile.yaml"), "" without one
    int world_size = 0;
    std::vector<ManifestNode> nodes;
    std::vector<ManifestRank> ranks;
    nlohmann::json versions = nlohmann::json::object();
    double start_utc = 0.0;
    std::optional<double> end_utc;
    std::string status = "running";  // running | complete | aborted
    nlohmann::json slurm;            // null outside a Slurm job
    std::optional<ManifestCost> cost;
};

nlohmann::json to_json(const RunManifest& manifest);

// Throws InputError "<context>run.json: ranks[3].node: expected a string" for what does not fit.
RunManifest parse_run_manifest(const nlohmann::json& document, const std::string& context);

// The trace file name of a rank: "rank-00042.h5" (its whole path in the flat layout before 1.2).
std::string default_trace_file_name(int rank);

// The one place the trace layout is declared: rank 42's trace inside the run folder,
// "traces/00000-00999/rank-00042.h5". Every writer (the driver, the synthetic run) uses it.
std::filesystem::path trace_relative_path(int rank);
// The block folder that holds it: "traces/00000-00999".
std::filesystem::path trace_block_folder(int rank);

// Why `path` (a run.json trace entry) is not a relative path inside the run folder: empty, a NUL
// byte, absolute, or a ".." component. nullopt when it is one.
std::optional<std::string> unsafe_trace_path_because(const std::string& path);

}  // namespace shakedown
