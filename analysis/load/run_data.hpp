// A run folder as values: what run.json says, and what each rank's trace held (or why it
// could not be read). Judging works on these values only, so it can be tested without files.
#pragma once

#include "trace/run_manifest.hpp"
#include "trace/trace_format.hpp"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace shakedown::analysis {

// Why a rank's contribution is missing or partial. Any of these makes the run incomplete.
enum class RankProblem { none, missing, unreadable, running, aborted, foreign };
std::string_view to_string(RankProblem problem);

struct RankRecord {
    int rank = 0;
    std::string node;  // from run.json, else from the trace header, else empty
    int local_rank = 0;
    std::optional<int> gpu;  // from run.json
    std::string gpu_uuid;    // from run.json: the GPU's UUID, "" when the run did not record one
    std::string gpu_name;    // from run.json: the GPU's model, "" when the run did not record one
    std::filesystem::path trace_path;
    std::optional<Trace> trace;  // what could be read; partial for running/aborted ranks
    bool inventory_read = false;  // trace->inventory is the trace's /inventory (RunLoadOptions)
    RankProblem problem = RankProblem::none;
    std::string problem_text;  // one line: "rank 3 (node02): trace missing (rank-00003.h5)"
};

struct LoadedRun {
    std::filesystem::path dir;
    RunManifest manifest;
    std::vector<RankRecord> ranks;          // one per expected rank, ordered by rank
    std::vector<std::string> run_problems;  // run-level: "run.json: status is running ..."
    // Every rank that did not finish ended by a signal it recorded (scancel, the job's time limit,
    // the job script's trap): the run was cancelled, not crashed. The line leads run_problems.
    std::optional<std::string> cancelled;
};

}  // namespace shakedown::analysis
