// Every name `train_step`'s results carry, declared once: the declaration (train_step_spec.cpp),
// the test, the analyzer's scaling rule and the report read these constants, never a literal.
#pragma once

#include "core/energy_declaration.hpp"
#include "core/scaling_declaration.hpp"

#include <string_view>

namespace shakedown::kernels::train_names {

inline constexpr std::string_view key = "train_step";

// Per rank, the job phase (data-parallel over every rank of the test): what a job gets.
inline constexpr std::string_view step_time_s = "train_step.step_time_s";
inline constexpr std::string_view step_time_p95_s = "train_step.step_time_p95_s";
inline constexpr std::string_view tokens_per_s = "train_step.tokens_per_s";
inline constexpr std::string_view model_tflops = "train_step.model_tflops";  // nominal: the part's peak: MFU
inline constexpr std::string_view mfu_of_measured_peak = "train_step.mfu_of_measured_peak";
inline constexpr std::string_view measured_peak_tflops = "train_step.measured_peak_tflops";
inline constexpr std::string_view model_tflop_per_step = "train_step.model_tflop_per_step";
inline constexpr std::string_view exposed_comm_s = "train_step.exposed_comm_s";
inline constexpr std::string_view exposed_comm_fraction = "train_step.exposed_comm_fraction";
// How much the step times of this rank scatter: (p95 - median) / median, the largest of the phases.
inline constexpr std::string_view step_noise = "train_step.step_noise";

// The three phases' median step times and the scaling they give.
inline constexpr std::string_view alone_step_s = "train_step.alone_step_s";
inline constexpr std::string_view node_step_s = "train_step.node_step_s";
inline constexpr std::string_view node_efficiency = "train_step.node_efficiency";
inline constexpr std::string_view predicted_node_efficiency = "train_step.predicted_node_efficiency";
inline constexpr std::string_view node_busbw_gbs = "train_step.node_busbw_gbs";
// Job-wide (one figure for the whole job, the same on every rank).
inline constexpr std::string_view job_efficiency = "train_step.job_efficiency";
inline constexpr std::string_view predicted_job_efficiency = "train_step.predicted_job_efficiency";
inline constexpr std::string_view job_busbw_gbs = "train_step.job_busbw_gbs";
inline constexpr std::string_view fabric_busbw_gbs = "train_step.fabric_busbw_gbs";
inline constexpr std::string_view job_gpus = "train_step.job_gpus";
inline constexpr std::string_view job_nodes = "train_step.job_nodes";
// Node leaders of a job over several nodes: the node's network link (median of its pair figures).
inline constexpr std::string_view node_link_gbs = "train_step.node_link_gbs";

// Validation.
inline constexpr std::string_view reference_error = "train_step.reference_error";
inline constexpr std::string_view gradient_sum_error = "train_step.gradient_sum_error";

// The sample table: one row per timed step of each phase.
inline constexpr std::string_view column_phase = "phase";  // 0 alone, 1 node, 2 job
inline constexpr std::string_view column_step = "step";
inline constexpr std::string_view column_seconds = "seconds";
inline constexpr std::string_view column_exposed_comm = "exposed_comm_seconds";

// The parameters the result records that the analyzer reads (besides every declared parameter).
inline constexpr std::string_view recorded_model = "model_used";
inline constexpr std::string_view recorded_engine = "engine";
inline constexpr std::string_view recorded_attention = "attention_path";
inline constexpr std::string_view recorded_topology = "node_topology";

enum class Phase { alone = 0, node = 1, job = 2 };

// Joules per million tokens and per step of the job's phase, and the model's TFLOP/s per watt
// beside the part's dense peak per watt of its power limit.
inline constexpr EnergyDeclaration energy{
    .test = key,
    .units = {{{.unit = "million tokens", .rate_metric = tokens_per_s, .units_per_rate_unit = 1e-6},
               {.unit = "step", .rate_metric = step_time_s, .seconds_per_unit = true}}},
    .per_watt_metric = model_tflops,
    .per_watt_unit = "TFLOP/s per W"};

// How the analyzer's scaling rule reads and words these figures.
inline constexpr ScalingDeclaration scaling{
    .test = key,
    .alone_step_s = alone_step_s,
    .step_noise = step_noise,
    .job_efficiency = job_efficiency,
    .predicted_job_efficiency = predicted_job_efficiency,
    .job_comm_gbs = job_busbw_gbs,
    .node_efficiency = node_efficiency,
    .predicted_node_efficiency = predicted_node_efficiency,
    .node_comm_gbs = node_busbw_gbs,
    .node_link_gbs = node_link_gbs,
    .work = "the training step",
    .job_step = "data-parallel step",
    .comm_figure = "all-reduce bus bandwidth",
    .waits_for_it = "in data parallelism every rank waits for it each step",
    .unexplained_cause = "the all-reduces overlap the backward less than scheduled (communication slowing the compute, or "
                         "the collectives' configuration)",
};

}  // namespace shakedown::kernels::train_names
