// The names of `cg_fp64`'s weak-scaling figures, declared once: the declaration (cg_fp64_spec.cpp),
// the test and the analyzer's scaling rule read these constants.
#pragma once

#include "core/scaling_declaration.hpp"

#include <string_view>

namespace shakedown::kernels::cg_fp64_names {

inline constexpr std::string_view key = "cg_fp64";

// The solves' rate (nominal: the triad bound) and its fraction of the bandwidth bound measured in
// the same test (bounded by 1: above it the bound or the measurement is wrong).
inline constexpr std::string_view gflops = "cg_fp64.gflops";
inline constexpr std::string_view bandwidth_bound_fraction = "cg_fp64.bandwidth_bound_fraction";

// Per rank, each phase's iteration: its wall time over its iterations (every rank runs each phase
// at the same time; kernels/stencil/stencil_scaling.hpp).
inline constexpr std::string_view alone_iteration_s = "cg_fp64.alone_iteration_s";    // SpMV, dots, updates; no message
inline constexpr std::string_view halo_iteration_s = "cg_fp64.halo_iteration_s";      // p's halo exchange alone
inline constexpr std::string_view allreduce_iteration_s = "cg_fp64.allreduce_iteration_s";  // the two allreduces alone
inline constexpr std::string_view job_iteration_s = "cg_fp64.job_iteration_s";        // the solves' iterations
inline constexpr std::string_view halo_gbs = "cg_fp64.halo_gbs";
inline constexpr std::string_view step_noise = "cg_fp64.step_noise";
// Job-wide (the same on every rank).
inline constexpr std::string_view job_efficiency = "cg_fp64.job_efficiency";
inline constexpr std::string_view predicted_job_efficiency = "cg_fp64.predicted_job_efficiency";
inline constexpr std::string_view job_halo_gbs = "cg_fp64.job_halo_gbs";

inline constexpr ScalingFigureNames figure_names{
    .alone_step_s = alone_iteration_s,
    .halo_step_s = halo_iteration_s,
    .serial_comm_step_s = allreduce_iteration_s,
    .job_step_s = job_iteration_s,
    .halo_gbs = halo_gbs,
    .step_noise = step_noise,
    .job_efficiency = job_efficiency,
    .predicted_job_efficiency = predicted_job_efficiency,
    .job_halo_gbs = job_halo_gbs,
};

inline constexpr ScalingDeclaration scaling{
    .test = key,
    .alone_step_s = alone_iteration_s,
    .step_noise = step_noise,
    .job_efficiency = job_efficiency,
    .predicted_job_efficiency = predicted_job_efficiency,
    .job_comm_gbs = job_halo_gbs,
    .work = "the CG iteration",
    .job_step = "CG iteration with its halo exchange and allreduces",
    .comm_figure = "median halo bandwidth",
    .waits_for_it = "its face neighbours wait for its halos and every rank for its part of the two allreduces each iteration",
    .unexplained_cause = "the halo exchange and the allreduces cost more beside the solver's work than alone (messages that "
                         "progress only inside MPI calls, or the work and the messages slowing each other)",
};

}  // namespace shakedown::kernels::cg_fp64_names
