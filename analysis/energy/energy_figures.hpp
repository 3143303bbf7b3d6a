// What a unit of work cost in energy, from the run's own readings: for every test that declares
// its units (energy_declarations.hpp) and ran on a GPU, the GPU's mean power over the test's timed
// phase (TestResult::measured) from the node leader's telemetry of that GPU, then joules per unit
// (mean power / the unit's rate, or x the seconds one unit took) and usable rate per watt beside
// the nominal rate per watt of the GPU's enforced power limit.
//
// Mean power, in this order:
//   energy counter  NVML's energy counter (telemetry column energy_j) read at both ends of the
//                   phase, each end interpolated between the readings around it; needs a phase of
//                   min_counter_window_s with min_counter_readings readings inside it. On an H100
//                   the counter's rise between 100 ms readings swung from 500 to 780 W at a steady
//                   700 W cap, about once a second: a shorter phase would take that swing for power.
//   power readings  the power_w readings over the phase (trapezoids, the ends interpolated); needs
//                   a phase of min_power_window_s: NVML's reading is itself a mean over the last
//                   second on Ampere and later parts, so a shorter phase would be mostly its
//                   neighbours.
// Neither: "not measured" with both reasons, never a guess. A mean at or below zero or above
// max_mean_power_over_limit times the enforced limit cannot be true: "not measured", with it.
//
// Host ranks: the node's CPU packages' energy counter (RAPL, telemetry column package_energy_j of
// the host table) over the phase as above, shared evenly by the node's ranks that ran the test on
// the host at once (each did the same work). The packages only: DRAM, fans, disks, NICs and the
// power supply's loss are not in it, and where the node exposes no RAPL (most VMs; root-only
// counters) the figure is "not measured" with that reason.
#pragma once

#include "analysis/load/observations.hpp"
#include "core/energy_declaration.hpp"
#include "core/result.hpp"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace shakedown::analysis {

inline constexpr int min_counter_readings = 3;
inline constexpr double min_counter_window_s = 1.0;
inline constexpr double min_power_window_s = 2.0;
// A GPU holds its mean power to its enforced limit over a second or more; brief excursions above
// it average out. The highest mean measured over a phase was 1.09 times the limit (an H100's
// counter over a 0.35 s phase at a 700 W cap, docs/benchmarks.md): a mean above this is a wrong
// counter or limit reading, not energy.
inline constexpr double max_mean_power_over_limit = 1.2;

struct EnergyPerUnit {
    std::string unit;  // "TFLOP", "million tokens", "step"
    double joules = 0.0;
};

struct EnergyRow {
    std::string node;
    int rank = 0;
    std::optional<int> gpu;
    std::string test;
    TimeWindow window;                        // the timed phase (zero where the test recorded none)
    int readings = 0;                         // telemetry readings inside it
    std::optional<double> power_w;            // the mean power the figures use
    std::string source;                       // "energy counter" or "power readings"
    std::optional<double> power_readings_w;   // the power readings' mean beside the counter's
    std::vector<EnergyPerUnit> per_unit;
    std::optional<double> per_watt;           // usable rate per watt
    std::string per_watt_unit;                // "TFLOP/s per W"
    std::optional<double> nominal_per_watt;   // the rate's nominal over the power limit
    std::optional<double> power_limit_w;      // the enforced limit, median over the phase
    std::string not_measured;                 // why there is no figure; "" when measured
};

// One test on one rank from its GPU's telemetry table (nullptr: the leader recorded none).
EnergyRow energy_of(const RankIdentity& who, const TestResult& test, const EnergyDeclaration& declaration,
                    const SampleTable* gpu_table);

// One host rank's test from the host table of its node's leader (nullptr: none recorded), the
// packages' power divided among `sharing_ranks`.
EnergyRow host_energy_of(const RankIdentity& who, const TestResult& test, const EnergyDeclaration& declaration,
                         const SampleTable* host_table, int sharing_ranks);

// Whether any rank of `node` ran a declared test (only then are its GPU and host tables read).
bool node_has_energy_figures(const Observations& observations, const NodeRow& node);

// Every declared test that ran on `node`: on a GPU from its leader's GPU tables and their
// attributes (the rank's GPU by UUID, else by ordinal), on the host from its host table; in the
// node's rank and test order.
std::vector<EnergyRow> node_energy(const Observations& observations, const NodeRow& node,
                                   const std::map<std::string, SampleTable>& telemetry,
                                   const std::map<std::string, std::map<std::string, std::string>>& attributes);

}  // namespace shakedown::analysis
