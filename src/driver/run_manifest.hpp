// run.json: what rank 0 knows about the whole run (command line, suite, ranks and nodes,
// versions, Slurm job, start/end, status). Written at start as "running" and rewritten at
// the end, each time atomically (temporary file + rename).
#pragma once

#include "core/config.hpp"
#include "core/session.hpp"
#include "driver/run_folder.hpp"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace shakedown {

// Collective over session.world(): gathers every rank's node, local rank and GPU.
nlohmann::json build_manifest(const Session& session, const Config& config, const RunFolder& folder,
                              const std::vector<std::string>& test_keys, const nlohmann::json& versions,
                              double start_utc);

nlohmann::json slurm_job_info();  // null outside a Slurm job

void write_json_atomically(const std::filesystem::path& path, const nlohmann::json& document);

}  // namespace shakedown
