// run.json (trace/run_manifest.hpp) as the driver makes it: written at start as "running" and
// rewritten at the end, each time atomically (temporary file + rename).
#pragma once

#include "core/config.hpp"
#include "core/output_file.hpp"
#include "core/session.hpp"
#include "driver/run_folder.hpp"
#include "trace/run_manifest.hpp"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace shakedown {

// Collective over session.world(): gathers every rank's node, local rank and GPU (with its
// UUID from this rank's inventory, "" without one). Complete on rank 0 only.
RunManifest build_manifest(const Session& session, const Config& config, const RunFolder& folder,
                           const std::vector<std::string>& test_keys, const nlohmann::json& versions, double start_utc,
                           const std::string& gpu_uuid, const std::string& gpu_name);

nlohmann::json slurm_job_info();  // null outside a Slurm job

// Rank 0: RUN/run.json, atomically. The first write (the run's start) records its seconds and bytes
// in manifest.cost beside build_manifest's gather seconds; the end's rewrite carries them. A signal's
// listener passes Flush::to_page_cache: its process is killed within a second.
void write_run_manifest(const RunFolder& folder, RunManifest& manifest, Flush flush = Flush::to_disk);
void write_text_atomically(const std::filesystem::path& path, const std::string& text);

}  // namespace shakedown
