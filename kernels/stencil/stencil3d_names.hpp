// The names of `stencil3d`'s weak-scaling figures, declared once: the declaration
// (stencil3d_spec.cpp), the test and the analyzer's scaling rule read these constants.
#pragma once

#include "core/scaling_declaration.hpp"

#include <string_view>

namespace shakedown::kernels::stencil3d_names {

inline constexpr std::string_view key = "stencil3d";

inline constexpr std::string_view gcells_per_s = "stencil3d.gcells_per_s";  // nominal: the triad bound

// Per rank, each phase's step: its wall time over its steps (every rank runs each phase at the same time).
inline constexpr std::string_view alone_step_s = "stencil3d.alone_step_s";  // the update, no halo exchange: T1
inline constexpr std::string_view halo_step_s = "stencil3d.halo_step_s";    // the halo exchange, no update
inline constexpr std::string_view job_step_s = "stencil3d.job_step_s";      // the update with its halo exchange
inline constexpr std::string_view halo_gbs = "stencil3d.halo_gbs";          // the rank's halo bytes over halo_step_s
inline constexpr std::string_view step_noise = "stencil3d.step_noise";      // (p95 - median) / median, the larger phase's
// Job-wide (the same on every rank).
inline constexpr std::string_view job_efficiency = "stencil3d.job_efficiency";
inline constexpr std::string_view predicted_job_efficiency = "stencil3d.predicted_job_efficiency";
inline constexpr std::string_view job_halo_gbs = "stencil3d.job_halo_gbs";  // the ranks' median halo bandwidth

// What stencil_scaling records under these names.
inline constexpr ScalingFigureNames figure_names{
    .alone_step_s = alone_step_s,
    .halo_step_s = halo_step_s,
    .serial_comm_step_s = {},
    .job_step_s = job_step_s,
    .halo_gbs = halo_gbs,
    .step_noise = step_noise,
    .job_efficiency = job_efficiency,
    .predicted_job_efficiency = predicted_job_efficiency,
    .job_halo_gbs = job_halo_gbs,
};

inline constexpr ScalingDeclaration scaling{
    .test = key,
    .alone_step_s = alone_step_s,
    .step_noise = step_noise,
    .job_efficiency = job_efficiency,
    .predicted_job_efficiency = predicted_job_efficiency,
    .job_comm_gbs = job_halo_gbs,
    .work = "the stencil step",
    .job_step = "stencil step with its halo exchange",
    .comm_figure = "median halo bandwidth",
    .waits_for_it = "its face neighbours wait for its halos each step, and theirs for them",
    .unexplained_cause = "the halo exchange costs more beside the update than alone (messages that progress only inside "
                         "MPI calls, or the update and the exchange slowing each other on the memory bus)",
};

}  // namespace shakedown::kernels::stencil3d_names
