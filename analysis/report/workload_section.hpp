// The Workload section: what a data-parallel training job gets from these GPUs (train_step,
// kernels/train/train_step_names.hpp): per device its step time, tokens per second and MFU
// (against the part's dense peak and against the GEMM rate measured in the same test); the
// scaling table (one GPU alone, each node, the job: the efficiency measured and predicted from the
// run's own figures, and the bus bandwidth the prediction used); and, with a node price, the price
// per million tokens and the time and price of a standard task (price.task_tokens, 10^9 tokens).
// Beside it the science kernels' weak scaling (every other test that declares its scaling figures,
// analysis/rules/figures/scaling_declarations.hpp): the job's efficiency against its prediction.
#pragma once

#include "analysis/energy/energy_figures.hpp"
#include "analysis/load/observations.hpp"
#include "analysis/rules/settings/analysis_settings.hpp"

#include <optional>
#include <string>
#include <vector>

namespace shakedown::analysis {

struct WorkloadDevice {
    std::string node;
    int rank = 0;
    std::optional<int> gpu;
    double step_s = 0.0;
    double tokens_per_s = 0.0;
    std::optional<double> mfu;           // model FLOP rate over the part's dense peak
    std::optional<double> mfu_measured;  // over the same test's GEMM rate
    std::optional<double> alone_s;
};

struct ScalingRow {
    std::string scope;  // "one GPU alone", "node0001", "job"
    int gpus = 1;
    double measured = 1.0;
    double predicted = 1.0;
    std::optional<double> bus_gbs;
};

// One science kernel's weak scaling over the job (a test run on at least two ranks).
struct ScienceScalingRow {
    std::string test;
    std::string work;  // the declaration's words: what a rank runs alone
    int ranks = 0;
    int nodes = 0;
    double measured = 1.0;
    double predicted = 1.0;
    std::optional<double> comm_gbs;
    std::string comm_figure;  // what comm_gbs is ("median halo bandwidth")
};

struct Workload {
    std::string model;      // the layer shapes the step ran
    std::string engine;     // what ran it (the first rank's)
    std::vector<WorkloadDevice> devices;
    std::vector<ScalingRow> scaling;  // one GPU, then each node with several ranks, then the job
    double job_tokens_per_s = 0.0;
    int nodes = 0;
    std::optional<double> price_per_million_tokens;
    double task_tokens = 1e9;
    std::optional<double> task_hours;
    std::optional<double> task_price;
    std::string currency;
    // The task's GPU energy from the run's own power (add_task_energy): unset where a GPU of the
    // step has no energy figure (task_energy_note says so) or none ran it.
    std::optional<double> task_kwh;
    std::optional<double> energy_per_kwh;  // the price given
    std::optional<double> task_energy_price;
    std::string task_energy_note;
    std::vector<ScienceScalingRow> science;
    bool empty() const { return devices.empty() && science.empty(); }
};

Workload make_workload(const Observations& observations, const AnalysisSettings& settings);

// The standard task's GPU energy: its tokens x the step GPUs' summed mean power over their summed
// tokens per second (energy/energy_figures.hpp, the job phase), and with price.energy_per_kwh its
// price. Only the GPUs' own draw: hosts, network and cooling are not measured.
void add_task_energy(Workload& workload, const std::vector<EnergyRow>& energy, const AnalysisSettings& settings);

struct WorkloadTable {
    std::vector<std::string> header;
    std::vector<std::vector<std::string>> rows;
};
WorkloadTable workload_device_table(const Workload& workload);
WorkloadTable workload_scaling_table(const Workload& workload);
WorkloadTable workload_science_table(const Workload& workload);
std::vector<std::string> workload_lines(const Workload& workload);

}  // namespace shakedown::analysis
