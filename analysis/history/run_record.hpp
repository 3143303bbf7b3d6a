// One analyzed run as the results history keeps it: who ran (run id, identity, times, suite),
// each node's verdict, every measured value (node, rank, GPU, test, metric, unit, value, nominal,
// direction, level) and the passive-health counters of each node's leader at the start and end
// of the run. Built from the loaded run (and its judgement, when it was judged); what `compare`
// and `history` read, whether from two run folders or from the history file.
#pragma once

#include "analysis/load/observations.hpp"
#include "analysis/load/run_details.hpp"
#include "analysis/rules/model/verdicts.hpp"

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace shakedown::analysis {

struct MeasuredValue {
    std::string node;
    int rank = 0;
    int local_rank = 0;
    std::optional<int> gpu;  // the rank's GPU
    std::string gpu_uuid;    // the GPU that measured the figure; "" for a figure of the host
    std::string test;
    std::string metric;
    std::string unit;
    double value = 0.0;  // NaN: the measurement produced no number
    std::optional<double> nominal;
    Better better = Better::higher;
    std::string level;  // "pass", "warn", "fail"; "" when the run was not judged
};

// One passive-health counter of one device of a node over the run: the first and the last
// finite reading (a counter not available throughout is left out, never stored as zero).
struct CounterReading {
    std::string node;
    std::string device;   // the GPU's UUID (else its health table's name), or a PCIe device's address
    std::string counter;  // the telemetry column: "ecc_sbe_volatile", "pcie_replay", "aer_fatal", ...
    std::string unit;
    double first = 0.0;
    double last = 0.0;
};

struct NodeRecord {
    std::string node;
    std::string verdict;  // "pass", "warn", "incomplete", "fail"; "" when not judged
};

struct RunRecord {
    // What makes a run the same run when it is appended again: run.json's run_uuid, else (a run
    // written before run_uuid existed) "<run_id>@<start_utc>".
    std::string identity;
    std::string run_id;
    std::string run_uuid;
    double start_utc = 0.0;
    std::optional<double> end_utc;
    std::string suite;
    std::string shakedown_version;
    std::string run_dir;  // the folder it was read from
    std::string status;   // run.json's: complete, aborted, running
    std::string verdict;  // the run's overall verdict, "" when not judged
    std::vector<NodeRecord> nodes;
    std::vector<MeasuredValue> values;
    std::vector<CounterReading> counters;
};

std::string run_identity(const RunManifest& manifest);

// `judgement`: the run's verdicts and findings (each value's level is its worst finding on that
// rank, test and metric); nullptr for a run only loaded, not judged (`compare`). Node leaders'
// health tables are read through `details`.
RunRecord make_run_record(const Observations& observations, const Judgement* judgement, RunDetails& details);

// A run folder loaded (not judged) into a record: what `compare` reads. Throws InputError for a
// folder that is not a run folder.
RunRecord read_run_record(const std::filesystem::path& run_dir);

}  // namespace shakedown::analysis
