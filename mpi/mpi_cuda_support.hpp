// Whether the MPI library says it can move GPU memory (CUDA-aware MPI), asked at run time
// through Open MPI's MPIX_Query_cuda_support where the library offers it.
#pragma once

#include <optional>

namespace shakedown::mpi {

// true/false as the library reports it; nothing when the library has no way to say.
std::optional<bool> mpi_reports_cuda_support();

}  // namespace shakedown::mpi
