// Loads a run folder: run.json, then every expected rank's trace. A missing, unreadable,
// still running or aborted trace is recorded on its RankRecord (the run is then incomplete);
// only a folder that is not a run folder at all is an InputError.
#pragma once

#include "analysis/load/run_data.hpp"

#include <filesystem>

namespace shakedown::analysis {

// The reader processes a load uses unless told otherwise (--jobs): the cores this process may
// run on. Reading a trace is almost all HDF5, which takes one thread at a time, so more cores
// are used through processes (load/forked_workers.hpp), not threads.
int default_load_jobs();

struct RunLoadOptions {
    bool inventory = false;  // the issue-2 judgments need metrics only
    // Each node's local rank 0 reads its /inventory with its metrics (RunDetails::inventory: the
    // report's hardware identity of every node), one open of the file instead of two.
    bool leader_inventory = true;
    int jobs = default_load_jobs();  // 1: every trace read in this process; the result is the same
};

LoadedRun load_run(const std::filesystem::path& run_dir, const RunLoadOptions& options = {});

}  // namespace shakedown::analysis
