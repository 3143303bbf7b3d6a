// Reads RUN/run.json (trace/run_manifest.hpp). Anything that is not a shakedown run folder is an
// InputError: "RUN is not a shakedown run folder: <why>".
#pragma once

#include "trace/run_manifest.hpp"

#include <filesystem>

namespace shakedown::analysis {

RunManifest read_run_manifest(const std::filesystem::path& run_dir);

}  // namespace shakedown::analysis
