// Why gpu_aware_mpi cannot run on this rank.
#pragma once

#include "core/run_context.hpp"
#include "mpi/cuda/mpi_cuda_support.hpp"

#include <optional>
#include <string>

namespace shakedown::mpi {

inline std::optional<std::string> gpu_aware_mpi_waiver(const RunContext& ctx) {
    if (!ctx.session().gpu()) return "no CUDA device";
    const auto support = mpi_reports_cuda_support();
    if (!support)
        return "MPI library cannot report CUDA support (no MPIX_Query_cuda_support or MPIX_GPU_query_support; "
               "for MPICH set MPIR_CVAR_ENABLE_GPU=1 to say it has)";
    if (!*support) return "MPI library reports no CUDA support";
    return std::nullopt;
}

}  // namespace shakedown::mpi
