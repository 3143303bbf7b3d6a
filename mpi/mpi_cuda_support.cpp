#include "mpi/mpi_cuda_support.hpp"

#include <mpi.h>
// Open MPI's extension header declares MPIX_Query_cuda_support; other MPI libraries lack it,
// which only a header check can tell (the one place this family asks the preprocessor).
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>
#endif

namespace shakedown::mpi {

std::optional<bool> mpi_reports_cuda_support() {
#if defined(OMPI_HAVE_MPI_EXT_CUDA) && OMPI_HAVE_MPI_EXT_CUDA
    return MPIX_Query_cuda_support() == 1;
#else
    return std::nullopt;
#endif
}

}  // namespace shakedown::mpi
