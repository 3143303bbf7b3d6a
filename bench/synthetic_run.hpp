// A realistic synthetic run folder (run.json + one rank file per rank) for the analyzer's
// benchmark and tests: GPU-node shaped inventory, the metric names the real tests write
// (stream, dgemm_fp64, gemm_ladder, mpi_pingpong, nccl, mpi_coll, allpairs) with nominal
// figures from the H200 reference measurements, samples, and node-leader telemetry with the
// real columns. Fault knobs plant what the analyzer must find: a slow node, slow links, a slow
// group of nodes (a switch uplink), link noise with repeated rounds, a power-capped GPU, a
// regressed node (for baselines).
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
    int ranks_per_node = 4;          // one GPU per rank: run.json "gpu" = local rank (unless gpus == false)
    bool gpus = true;
    std::vector<std::string> tests;  // empty: the default set (every catalog test but allpairs)
    int sample_rows = 100;           // per test (allpairs: the link matrix instead, on rank 0)
    double telemetry_hz = 10.0;      // leaders sample the host and each GPU over the whole run
    std::uint64_t seed = 1;
    std::string run_id = "synthetic";

    // --- fault knobs --------------------------------------------------------------------
    std::optional<int> slow_node;             // throughput x0.5, latency x2, its links x slow_node_link_factor
    double slow_node_link_factor = 0.3;
    std::vector<std::pair<int, int>> slow_links;  // the links between each pair of nodes x slow_link_factor
    double slow_link_factor = 0.2;
    // One direction of a link: what node `first` sends to node `second` x slow_link_factor, the
    // reverse untouched (a port's transmit side, a one-way shaped interface).
    std::vector<std::pair<int, int>> slow_directions;
    std::vector<int> slow_group;              // links between these nodes and the others x slow_group_factor
    double slow_group_factor = 0.3;
    // Measurement noise of the link matrix: every measurement (each ordered rank pair, each round)
    // is multiplied by its own factor drawn uniformly from [1 - noise, 1 + noise] (seeded by
    // `seed`), as a fabric's run-to-run spread is; 0.02 is a quiet fabric, 0.3 the spread of
    // single-shot links on the 4-node virtual cluster.
    double noise = 0.02;
    int rounds = 1;                           // measurements of each ordered rank pair (rows of the matrix)
    // The link faults above (slow node's links, slow links and directions, the group's cross
    // links) start at this round of the matrix: before it every link is healthy (a node or cable
    // that degrades during the run).
    int link_faults_from_round = 0;
    struct ThrottledGpu {
        int node = 0;
        int gpu = 0;
        double power_capped_share = 0.83;     // of each GEMM window
    };
    std::optional<ThrottledGpu> throttled_gpu;  // GEMM throughput x0.65, power-capped telemetry
    std::optional<int> regressed_node;        // throughput x regression_factor (a later run vs a baseline)
    double regression_factor = 0.85;
    // Configuration drift: these nodes' inventories record another GPU driver, another HCA firmware.
    std::vector<int> other_driver_nodes;
    std::vector<int> other_hca_firmware_nodes;
};

std::vector<std::string> synthetic_test_keys();          // the default set
std::vector<std::string> all_synthetic_test_keys();      // including allpairs
std::string synthetic_node_name(int node_index);         // "node0007"

// The allpairs link matrix rank 0 records (link_matrix_columns: one row per measurement of an
// ordered rank pair, `rounds` rows per pair), deterministic for a given seed: what the traces hold,
// without writing them, for in-process tests over many seeds. Throws InputError for a bad spec.
SampleTable synthetic_link_matrix(const SyntheticRunSpec& spec);

// Throws InputError when a knob names a node outside the run or a value out of range.
void check_synthetic_spec(const SyntheticRunSpec& spec);

// The trace rank `rank` of the run would write (deterministic for a given seed).
Trace make_synthetic_trace(const SyntheticRunSpec& spec, int rank);

// Creates `out_dir` (it must not exist, or be empty) and writes run.json and every rank file,
// the first node's here, then the others in `jobs` forked writer processes (the files are the
// same for any `jobs`). Throws InputError for a bad spec, a folder that already holds files, or
// a run the disk cannot hold (estimated from the first node's files, refused before the others).
void write_synthetic_run(const std::filesystem::path& out_dir, const SyntheticRunSpec& spec, int jobs = 1);

}  // namespace shakedown::bench
