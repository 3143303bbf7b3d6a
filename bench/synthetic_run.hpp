// A realistic synthetic run folder (run.json + one rank file per rank) for the analyzer's
// benchmark and tests: GPU-node shaped inventory, ~5 tests of ~6 metrics with nominal figures
// taken from the H200 reference measurements, samples and leader telemetry of real sizes.
#pragma once

#include "trace/trace_format.hpp"

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace shakedown::bench {

struct SyntheticRunSpec {
    int ranks = 4;
    int ranks_per_node = 4;
    std::vector<std::string> tests;   // empty: every test of the catalog
    std::optional<int> slow_node;     // this node's throughput halves, its latency doubles
    int sample_rows = 100;            // per test
    double telemetry_seconds = 60.0;  // per device, on node leaders (local rank 0)
    double telemetry_hz = 10.0;
    std::uint64_t seed = 1;
    std::string run_id = "synthetic";
};

std::vector<std::string> synthetic_test_keys();
std::string synthetic_node_name(int node_index);  // "node0007"

// The trace rank `rank` of the run would write (deterministic for a given seed).
Trace make_synthetic_trace(const SyntheticRunSpec& spec, int rank);

// Creates `out_dir` (it must not exist, or be empty) and writes run.json and every rank file.
// Throws InputError for a bad spec or a folder that already holds files.
void write_synthetic_run(const std::filesystem::path& out_dir, const SyntheticRunSpec& spec);

}  // namespace shakedown::bench
