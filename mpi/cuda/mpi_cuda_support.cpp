#include "mpi/cuda/mpi_cuda_support.hpp"

#include <mpi.h>
// Open MPI's extension header declares MPIX_Query_cuda_support; other MPI libraries lack it,
// which only a header check can tell (the one place this family asks the preprocessor).
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>
#endif

#include <cstdlib>

namespace shakedown::mpi {
namespace {

std::optional<bool> library_answer() {
#if defined(OMPI_HAVE_MPI_EXT_CUDA) && OMPI_HAVE_MPI_EXT_CUDA
    return MPIX_Query_cuda_support() == 1;
#elif defined(MPICH_NUMVERSION) && defined(MPIX_GPU_SUPPORT_CUDA)
    // MPICH 4.0 and later.
    int supported = 0;
    if (MPIX_GPU_query_support(MPIX_GPU_SUPPORT_CUDA, &supported) != MPI_SUCCESS) return std::nullopt;
    return supported != 0;
#elif defined(MPICH_NUMVERSION) && MPICH_NUMVERSION >= 40100000
    return MPIX_Query_cuda_support() == 1;
#else
    return std::nullopt;
#endif
}

}  // namespace

std::optional<bool> decide_cuda_support(const CudaSupportEvidence& evidence) {
    if (evidence.library_answer) return evidence.library_answer;
    if (evidence.is_mpich && evidence.mpich_enable_gpu) {
        if (*evidence.mpich_enable_gpu == "0") return false;
        if (*evidence.mpich_enable_gpu == "1") return true;
    }
    return std::nullopt;
}

CudaSupportEvidence collect_cuda_support_evidence() {
    CudaSupportEvidence evidence;
    evidence.library_answer = library_answer();
#if defined(MPICH_VERSION)
    evidence.is_mpich = true;
#endif
    if (const char* value = std::getenv("MPIR_CVAR_ENABLE_GPU")) evidence.mpich_enable_gpu = value;
    return evidence;
}

std::optional<bool> mpi_reports_cuda_support() { return decide_cuda_support(collect_cuda_support_evidence()); }

}  // namespace shakedown::mpi
