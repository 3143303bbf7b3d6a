// RUN/run.json: what rank 0 knows about the whole run (command line, suite, nodes and ranks with
// their GPUs, versions, Slurm job, start and end, status). One value and one mapping to and
// from JSON, so the driver and the synthetic run write what the analyzer reads; the keys live
// in run_manifest.cpp only.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace shakedown {

inline constexpr const char* run_manifest_file_name = "run.json";

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
    std::string trace_file;  // a plain file name inside the run folder
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
};

nlohmann::json to_json(const RunManifest& manifest);

// Throws InputError "<context>run.json: ranks[3].node: expected a string" for what does not fit.
RunManifest parse_run_manifest(const nlohmann::json& document, const std::string& context);

// The trace file name of a rank: "rank-00042.h5".
std::string default_trace_file_name(int rank);

}  // namespace shakedown
