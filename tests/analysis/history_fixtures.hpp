// Run folders for the results-history tests: three nodes (node0000..node0002, one rank each) with
// stream and mpi_pingpong figures that differ a little per node, and on each node leader a GPU
// health table (the NVML counters the hidden-fault rule reads, as telemetry/gpu_health_telemetry
// writes them; no NVML on this machine, so the table is made here). Written through the real
// TraceWriter as HDF5 run folders.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace shakedown::analysis::testing {

inline constexpr const char* planted_metric = "stream.triad_gbs";
inline constexpr const char* planted_node = "node0001";
inline constexpr const char* planted_counter = "ecc_sbe_volatile";
inline constexpr double planted_slowdown = 0.8;  // the planted figure is 20 % lower
inline constexpr double planted_ecc_rise = 5;    // corrected ECC errors during the later run
inline constexpr const char* aer_device = "0000:19:00.0";

// node0000..node0002's triad figures in a healthy run (GB/s); the fleet median is node0000's.
double healthy_triad(int node);
// "GPU-hist-000N": node N's GPU, named in its health table.
std::string history_gpu_uuid(int node);

struct HistoryRunSpec {
    std::string run_id;
    std::string run_uuid;
    double start_utc = 1764480000.0;
    bool planted = false;  // planted_node's planted_metric x planted_slowdown and its ECC count rising
    // planted_node's PCIe AER table (as telemetry/pcie_aer_telemetry writes it): the GPU's fatal
    // count rising by this much during the run (0: constant)
    double aer_fatal_rise = 0;
};

// Writes the run folder `dir` (created) and returns it.
std::filesystem::path write_history_run(const std::filesystem::path& dir, const HistoryRunSpec& spec);

}  // namespace shakedown::analysis::testing
