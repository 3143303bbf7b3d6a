// The run folder: a new folder per run under the --out parent, created by rank 0 and
// announced to every rank. An existing run folder is never reused or overwritten.
#pragma once

#include "core/config.hpp"

#include <mpi.h>

#include <filesystem>
#include <string>

namespace shakedown {

struct RunFolder {
    std::filesystem::path path;
    std::string run_id;    // the folder's name
    std::string run_uuid;  // random (a version-4 UUID), made by rank 0: what tells this run from another of the same name
};

// The folder name a run without --name gets: its start's UTC time stamp, the tag, the Slurm job
// ("20261207-173344-night-job812"); "-2", "-3" ... is added where that folder exists.
std::string default_run_name(const Config& config);

// Collective over `world`. Throws InputError on every rank (same message) when the parent
// cannot be created or written, or when an explicitly named run folder exists already.
// Rank 0 also makes RUN/traces and its block folders for the world's ranks (trace_relative_path in
// trace/run_manifest.hpp), so no rank's trace waits on a mkdir and no folder is made twice.
RunFolder create_run_folder(const Config& config, MPI_Comm world);

// Removes RUN/traces and its block folders for `world_size` ranks where they are empty (a run that
// did not start); a folder that still holds something stays.
void remove_empty_trace_folders(const RunFolder& folder, int world_size);

// A random version-4 UUID ("0f8e...-4...-a..."), from the system's random source.
std::string random_run_uuid();

std::filesystem::path trace_path(const RunFolder& folder, int world_rank);  // RUN/traces/00000-00999/rank-00003.h5

}  // namespace shakedown
