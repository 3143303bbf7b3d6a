// FP64 capability: what a scientific buyer asks of a node ("how much real FP64 does it give my
// code?"), device by device: native DGEMM, the HPL-class LU (rate, scaled residual, and its
// efficiency against the DGEMM of the same device), CG (rate and fraction of its memory-bandwidth
// bound: the latency- and memory-bound side) and FP64 emulated on tensor cores (rate and its error
// against native on the same inputs), each usable beside its nominal; per node the sums over its
// GPUs and, given a price, the price per usable FP64 TFLOP/s. The host LU is one ScaLAPACK LU over
// all the test's host ranks, so it is a job-wide line, judged against those ranks' summed DGEMM.
#pragma once

#include "analysis/energy/energy_figures.hpp"
#include "analysis/load/observations.hpp"
#include "analysis/rules/settings/analysis_settings.hpp"
#include "kernels/cg/cg_fp64_names.hpp"
#include "kernels/dgemm/dgemm_fp64_names.hpp"
#include "kernels/ladder/gemm_ladder_names.hpp"
#include "kernels/lu/lu_fp64_names.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace shakedown::analysis {

// The metrics the section reads, each declared by its test's spec (checked by a test).
namespace fp64_metrics {
inline constexpr std::string_view dgemm = kernels::dgemm_names::tflops;
inline constexpr std::string_view lu = kernels::lu_names::tflops;
inline constexpr std::string_view lu_residual = kernels::lu_names::scaled_residual;
inline constexpr std::string_view cg = kernels::cg_fp64_names::gflops;
inline constexpr std::string_view cg_bound_fraction = kernels::cg_fp64_names::bandwidth_bound_fraction;
inline constexpr std::string_view emulated = kernels::gemm_ladder_names::fp64_emulated_tflops;
inline constexpr std::string_view emulated_error = kernels::gemm_ladder_names::fp64_emulated_max_rel_error_vs_native;
}  // namespace fp64_metrics

struct Rate {
    double value = 0.0;
    std::optional<double> nominal;
    std::optional<double> fraction() const;  // value / nominal
};

// One device: a GPU (the rank bound to it, results with `device: gpu` or GPU-only tests), or the
// host part a rank measured (`device: host`).
struct Fp64Device {
    int rank = 0;
    std::optional<int> gpu;  // unset: the host
    std::string gpu_uuid;
    std::optional<Rate> dgemm_tflops;
    std::optional<Rate> lu_tflops;             // GPU only: the host LU is job-wide
    std::optional<double> lu_scaled_residual;  // GPU only
    std::optional<double> lu_efficiency;       // LU / DGEMM of this device
    std::optional<Rate> cg_gflops;
    std::optional<double> cg_bound_fraction;
    std::optional<Rate> emulated_tflops;
    std::optional<double> emulated_error;       // max |C_emulated - C_native| / max |C_native|
    std::optional<double> emulated_vs_native;   // emulated / native DGEMM rate of this device
    std::string label() const;                  // "GPU 0", "host (rank 3)"
};

struct Fp64Node {
    std::string node;
    std::vector<Fp64Device> devices;       // rank order, a rank's GPU before its host part
    std::optional<Rate> gpu_dgemm_tflops;  // summed over the node's GPUs
    std::optional<Rate> gpu_lu_tflops;
    std::optional<double> price_per_dgemm_tflops_hour;  // the node's price over its usable GPU DGEMM
    std::optional<double> price_per_lu_tflops_hour;
};

struct HostLu {
    int ranks = 0;
    std::string grid;  // "2x2"
    Rate tflops;
    double scaled_residual = 0.0;
    std::optional<double> efficiency;  // over the same ranks' summed host DGEMM
};

// A standard FP64 task (price.task_fp64_flop, 10^18 FLOP of DGEMM) on this fleet's GPUs at their
// summed usable DGEMM rate: its time, with a node price its price, and its GPU energy from the
// run's own mean power over each GPU's DGEMM phase (energy/energy_figures.hpp), with an energy
// price its energy's price. Only the GPUs' own draw: hosts, network and cooling are not measured.
struct Fp64Task {
    double flop = 1e18;
    int gpus = 0;
    int nodes = 0;
    double tflops = 0.0;  // the GPUs' summed usable DGEMM rate
    double hours = 0.0;
    std::optional<double> price;
    std::optional<double> kwh;
    std::optional<double> energy_per_kwh;  // the price given
    std::optional<double> energy_price;
    std::string energy_note;  // why there is no energy: a GPU's DGEMM has no energy figure
};

struct Fp64Capability {
    std::vector<Fp64Node> nodes;  // nodes with at least one FP64 figure
    std::optional<HostLu> host_lu;
    std::optional<Fp64Task> task;  // add_fp64_task: with a GPU DGEMM figure
    std::optional<double> node_hour_price;
    std::string currency;
    bool empty() const { return nodes.empty() && !host_lu; }
};

Fp64Capability make_fp64_capability(const Observations& observations, const AnalysisSettings& settings);

// The standard FP64 task over the capability's GPU DGEMM figures and the run's energy rows.
void add_fp64_task(Fp64Capability& capability, const std::vector<EnergyRow>& energy, const AnalysisSettings& settings);

// The section as every report shows it: one row of text cells per device ("-" where the run did
// not measure it), and the lines below the table (node sums and their price, the host LU).
struct Fp64Table {
    std::vector<std::string> header;
    std::vector<std::vector<std::string>> rows;
};
Fp64Table fp64_table(const Fp64Capability& capability);
std::vector<std::string> fp64_lines(const Fp64Capability& capability);

}  // namespace shakedown::analysis
