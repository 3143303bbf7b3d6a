// One rank per GPU (each device judged as a device): which ranks share a physical GPU comes from
// the GPU's identity, not from local rank arithmetic, and every GPU test waives on a rank whose
// GPU another rank owns. The ranks "see" one GPU here (this machine has none): the session is
// told so; nothing runs on it.
#include "core/session.hpp"
#include "core/waiver_reasons.hpp"
#include "support/gpu_sharing.hpp"
#include "support/mpi_world.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

namespace shakedown::testing {
namespace {

std::string distinct_uuid() { return "GPU-0000000" + std::to_string(world_rank()) + "-2222-3333-4444-555555555555"; }

TEST(GpuSharing, RanksBoundToTheSameGpuShareItAndTheLowestOwnsIt) {
    Session session(MPI_COMM_WORLD, 1);  // every rank's ordinal is 0
    session.record_gpu_identity("GPU-11111111-2222-3333-4444-555555555555");
    EXPECT_EQ(session.gpu_owner(), 0);  // one node, the lowest world rank owns it
    EXPECT_EQ(session.gpus_measured(), 1);
}

TEST(GpuSharing, DistinctUuidsAreDistinctGpusUnderPerRankVisibility) {
    Session session(MPI_COMM_WORLD, 1);  // ordinal 0 everywhere, as with CUDA_VISIBLE_DEVICES per rank
    session.record_gpu_identity(distinct_uuid());
    EXPECT_EQ(session.gpu_owner(), world_rank());
    EXPECT_EQ(session.gpus_measured(), world_size());
}

TEST(GpuSharing, WithoutAUuidTheOrdinalStandsForTheGpu) {
    Session session(MPI_COMM_WORLD, 2);  // ordinals 0, 1, 0, 1 by local rank
    session.record_gpu_identity("");
    EXPECT_EQ(session.gpu_owner(), world_rank() % 2);
    EXPECT_EQ(session.gpus_measured(), std::min(2, world_size()));
}

TEST(GpuSharing, NoGpuMeasuresNone) {
    Session session(MPI_COMM_WORLD, 0);
    session.record_gpu_identity("");
    EXPECT_EQ(session.gpus_measured(), 0);
}

// NCCL: a rank whose GPU another owns waives; over one GPU in the whole job even the owner
// waives (a collective over one GPU crosses no link: bus bandwidth 0 by definition), as a job
// too small for the test, not a missing device.
TEST(GpuSharing, NcclWaivesOnASharedGpuAndOnAJobWithOneGpu) {
    if (!gpu::cuda_built()) GTEST_SKIP() << "CPU build: no rank has a usable GPU";
    Session session(MPI_COMM_WORLD, 1);
    session.record_gpu_identity("GPU-11111111-2222-3333-4444-555555555555");
    const auto waiver = waiver_with(session, "nccl");
    ASSERT_TRUE(waiver.has_value());
    if (world_rank() == 0) {
        EXPECT_EQ(*waiver, "needs at least 2 GPUs in the job (this run measures 1)");
        EXPECT_TRUE(is_job_too_small_waiver(*waiver));
    } else {
        EXPECT_EQ(*waiver, "GPU 0 is shared with rank 0, which measures it (one rank per GPU)");
    }
}

TEST(GpuSharing, NcclRunsWithOneGpuPerRank) {
    if (!gpu::cuda_built()) GTEST_SKIP() << "CPU build: no rank has a usable GPU";
    Session session(MPI_COMM_WORLD, 1);
    session.record_gpu_identity(distinct_uuid());
    const auto waiver = waiver_with(session, "nccl");
    EXPECT_FALSE(waiver.has_value()) << *waiver;
}

}  // namespace
}  // namespace shakedown::testing
