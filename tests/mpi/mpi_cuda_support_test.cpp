// The CUDA-aware MPI decision on planted evidence: the library's own answer (Open MPI's or
// MPICH's query) wins; an MPICH without a query is judged by MPIR_CVAR_ENABLE_GPU.
#include "mpi/cuda/mpi_cuda_support.hpp"

#include <gtest/gtest.h>

namespace shakedown::mpi {
namespace {

TEST(MpiCudaSupport, TheLibrarysAnswerWinsOverTheEnvironment) {
    EXPECT_EQ(decide_cuda_support({.library_answer = true, .is_mpich = true, .mpich_enable_gpu = "0"}), true);
    EXPECT_EQ(decide_cuda_support({.library_answer = false, .is_mpich = true, .mpich_enable_gpu = "1"}), false);
    EXPECT_EQ(decide_cuda_support({.library_answer = false}), false);
}

TEST(MpiCudaSupport, MpichWithoutAQueryIsJudgedByItsGpuSwitch) {
    EXPECT_EQ(decide_cuda_support({.is_mpich = true, .mpich_enable_gpu = "1"}), true);
    EXPECT_EQ(decide_cuda_support({.is_mpich = true, .mpich_enable_gpu = "0"}), false);
    EXPECT_EQ(decide_cuda_support({.is_mpich = true, .mpich_enable_gpu = "yes please"}), std::nullopt);
    EXPECT_EQ(decide_cuda_support({.is_mpich = true}), std::nullopt);
}

TEST(MpiCudaSupport, MpichsSwitchSaysNothingAboutAnotherLibrary) {
    EXPECT_EQ(decide_cuda_support({.is_mpich = false, .mpich_enable_gpu = "1"}), std::nullopt);
}

TEST(MpiCudaSupport, OpenMpiHereAnswersForItself) {
    // This machine's Open MPI has the CUDA extension header: its answer is a value, whatever
    // the environment says (MPICH's switch is ignored for it).
    const auto evidence = collect_cuda_support_evidence();
    EXPECT_FALSE(evidence.is_mpich);
    EXPECT_EQ(mpi_reports_cuda_support(), evidence.library_answer);
}

}  // namespace
}  // namespace shakedown::mpi
