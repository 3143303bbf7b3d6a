// Loads a run folder: run.json, then every expected rank's trace. A missing, unreadable,
// still running or aborted trace is recorded on its RankRecord (the run is then incomplete);
// only a folder that is not a run folder at all is an InputError.
#pragma once

#include "analysis/load/run_data.hpp"

#include <filesystem>

namespace shakedown::analysis {

struct RunLoadOptions {
    bool inventory = false;  // the issue-2 judgments need metrics only
};

LoadedRun load_run(const std::filesystem::path& run_dir, const RunLoadOptions& options = {});

}  // namespace shakedown::analysis
