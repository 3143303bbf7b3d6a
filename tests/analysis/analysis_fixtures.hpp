// Hand-made traces and run folders for the analyzer's tests. Traces are plain values; run
// folders are written with the real TraceWriter (through bench/run_folder_writer).
#pragma once

#include "analysis/load/run_data.hpp"
#include "analysis/rules/model/verdicts.hpp"
#include "analysis/rules/settings/thresholds.hpp"
#include "trace/trace_format.hpp"

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace shakedown::analysis::testing {

// A fresh directory under $TMPDIR, removed with everything in it at the end of the test.
class TempDir {
public:
    TempDir();
    ~TempDir();
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    const std::filesystem::path& path() const { return path_; }

private:
    std::filesystem::path path_;
};

inline constexpr const char* test_run_id = "20261130-060000-test";

// A finished rank: "stream" (stream.triad_gbs 7.5 of nominal 7.9 GB/s) and "mpi_pingpong"
// (mpi_pingpong.latency_us 1.9 us), both passed.
Trace healthy_trace(int rank, int world_size, const std::string& node);

// `world_size` healthy traces, `ranks_per_node` per node named node0000, node0001, ...
std::vector<Trace> healthy_traces(int world_size, int ranks_per_node);

TestResult& test_named(Trace& trace, const std::string& key);
Metric& metric_named(Trace& trace, const std::string& name);
// A metric as the driver records it: the unit and direction its test declares (a trace that
// says otherwise is corrupt to the loader).
Metric declared_metric(std::string_view test_key, std::string_view name, double value,
                       std::optional<double> nominal = std::nullopt);

// The LoadedRun load_run() would return for these traces, all read without a problem.
LoadedRun loaded_run(const std::vector<Trace>& traces);

// The first rules (the tests' own status, results missing, thresholds) and the verdicts over
// them: what the analyzer judges before the fleet, baseline, links and telemetry rules.
Judgement judge_run(const LoadedRun& run, const Thresholds& thresholds);

// Writes run.json (listing `tests` as the run's selection) and one rank file per trace into
// `dir`; returns the run folder.
std::filesystem::path write_run(const std::filesystem::path& dir, const std::vector<Trace>& traces,
                                const std::string& status = "complete",
                                const std::vector<std::string>& tests = {"stream", "mpi_pingpong"});

// The same with every rank bound to GPU 0 of its node, named `gpu_name_of_rank[rank]` in run.json
// (what calibrated figures match).
std::filesystem::path write_gpu_run(const std::filesystem::path& dir, const std::vector<Trace>& traces,
                                    const std::vector<std::string>& gpu_name_of_rank,
                                    const std::vector<std::string>& tests);

std::string read_text(const std::filesystem::path& path);

}  // namespace shakedown::analysis::testing
