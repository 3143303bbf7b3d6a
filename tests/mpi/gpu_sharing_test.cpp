// One rank per GPU (each device judged as a device): which ranks share a physical GPU comes from
// the GPU's identity, not from local rank arithmetic, and every GPU test waives on a rank whose
// GPU another rank owns. The ranks "see" one GPU here (this machine has none): the session is
// told so; nothing runs on it.
#include "core/session.hpp"
#include "support/gpu_sharing.hpp"
#include "support/mpi_world.hpp"

#include <gtest/gtest.h>

namespace shakedown::testing {
namespace {

TEST(GpuSharing, RanksBoundToTheSameGpuShareItAndTheLowestOwnsIt) {
    Session session(MPI_COMM_WORLD, 1);  // every rank's ordinal is 0
    session.record_gpu_identity("GPU-11111111-2222-3333-4444-555555555555");
    EXPECT_EQ(session.gpu_owner(), 0);  // one node, the lowest world rank owns it
}

TEST(GpuSharing, DistinctUuidsAreDistinctGpusUnderPerRankVisibility) {
    Session session(MPI_COMM_WORLD, 1);  // ordinal 0 everywhere, as with CUDA_VISIBLE_DEVICES per rank
    session.record_gpu_identity("GPU-0000000" + std::to_string(world_rank()) + "-2222-3333-4444-555555555555");
    EXPECT_EQ(session.gpu_owner(), world_rank());
}

TEST(GpuSharing, WithoutAUuidTheOrdinalStandsForTheGpu) {
    Session session(MPI_COMM_WORLD, 2);  // ordinals 0, 1, 0, 1 by local rank
    session.record_gpu_identity("");
    EXPECT_EQ(session.gpu_owner(), world_rank() % 2);
}

TEST(GpuSharing, NcclWaivesOnARankWhoseGpuAnotherOwns) { expect_one_rank_per_gpu({"nccl"}); }

}  // namespace
}  // namespace shakedown::testing
