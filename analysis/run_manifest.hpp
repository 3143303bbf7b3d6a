// Reads RUN/run.json. Anything that is not a shakedown run folder is an InputError:
// "RUN is not a shakedown run folder: <why>".
#pragma once

#include "analysis/run_data.hpp"

#include <filesystem>

namespace shakedown::analysis {

inline constexpr const char* run_manifest_file_name = "run.json";

RunManifest read_run_manifest(const std::filesystem::path& run_dir);

// The trace file name the driver uses for a rank: "rank-00042.h5".
std::string default_trace_file_name(int rank);

}  // namespace shakedown::analysis
