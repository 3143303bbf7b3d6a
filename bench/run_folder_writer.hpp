// Writes run folders from values: run.json and rank files through the real TraceWriter, so the
// synthetic benchmark runs and the analyzer's tests read exactly what the driver would write.
#pragma once

#include "trace/trace_format.hpp"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>
#include <vector>

namespace shakedown::bench {

// One rank file: header, config, inventory, every test, telemetry and events in that order,
// then finish(status, end_utc) unless the trace is still `running` (as a killed rank leaves it).
void write_trace_file(const std::filesystem::path& path, const Trace& trace);

// Where run.json places each rank's trace: `blocks` where the driver writes them now
// (trace_relative_path: RUN/traces/<block>/rank-NNNNN.h5), `flat` as runs before run.json 1.2
// did (RUN/rank-NNNNN.h5; the tests' hand-made folders).
enum class TraceLayout { flat, blocks };

// run.json as the driver writes it, for ranks whose node names are `node_of_rank[rank]` and
// whose bound GPUs are `gpu_of_rank[rank]` (empty, or -1 for a rank: "gpu": null) with the UUIDs
// `gpu_uuid_of_rank[rank]` (empty: none recorded).
nlohmann::json make_run_json(const std::string& run_id, const std::vector<std::string>& tests,
                             const std::vector<std::string>& node_of_rank, const std::string& status = "complete",
                             const std::vector<int>& gpu_of_rank = {}, const std::vector<std::string>& gpu_uuid_of_rank = {},
                             const std::vector<std::string>& gpu_name_of_rank = {}, TraceLayout layout = TraceLayout::flat);

// Where rank `rank`'s trace lies in a run folder of that layout, relative to the folder.
std::filesystem::path trace_path_in(TraceLayout layout, int rank);

// Writes RUN/run.json; never overwrites an existing file.
void write_run_json(const std::filesystem::path& run_dir, const nlohmann::json& manifest);

}  // namespace shakedown::bench
