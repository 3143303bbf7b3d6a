// Whether the MPI library can move GPU memory (CUDA-aware MPI), asked at run time:
//   Open MPI: MPIX_Query_cuda_support (mpi-ext.h);
//   MPICH 4: MPIX_GPU_query_support(MPIX_GPU_SUPPORT_CUDA), else MPIX_Query_cuda_support;
//   else, for MPICH, its switch MPIR_CVAR_ENABLE_GPU in the environment.
#pragma once

#include <optional>
#include <string>

namespace shakedown::mpi {

// What the library and the environment say; collected by collect_cuda_support_evidence().
struct CudaSupportEvidence {
    std::optional<bool> library_answer;           // the library's own query, when it has one
    bool is_mpich = false;                        // MPICH or a derivative (MPICH_VERSION)
    std::optional<std::string> mpich_enable_gpu;  // MPIR_CVAR_ENABLE_GPU when set
};

// The library's answer wins; without one, an MPICH's MPIR_CVAR_ENABLE_GPU: "0" no, "1" yes
// (anything else says nothing); nothing when there is no way to tell.
std::optional<bool> decide_cuda_support(const CudaSupportEvidence& evidence);

// After MPI_Init (MPICH answers its query only then).
CudaSupportEvidence collect_cuda_support_evidence();

// decide_cuda_support(collect_cuda_support_evidence())
std::optional<bool> mpi_reports_cuda_support();

}  // namespace shakedown::mpi
