// checkpoint_io through the driver's path (execute_test) on 1, 2 and 4 ranks of this machine:
// every rank's shard and sample files validated, the rank, node and job figures where they
// belong, a planted wrong word failing the rank that holds it with the file and byte offset, a
// full file system (a small tmpfs, mounted for the test: root only) and a checkpoint larger than
// half the memory refused before any write as configuration, and no file left behind in any case.
#include "shared_folder.hpp"
#include "support/mpi_world.hpp"
#include "support/result_lookup.hpp"
#include "support/run_test.hpp"
#include "../support/full_file_system.hpp"

#include "health/storage/checkpoint_io_names.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace shakedown::testing {
namespace {

namespace names = health::checkpoint_io_names;

std::string checkpoint_yaml(const std::filesystem::path& target, const std::string& extra = "") {
    return "params: {checkpoint_io: {target: '" + target.string() +
           "', shard_mib: 8, block_kib: 256, sample_files: 40, sample_kib: 16}}\n" + extra;
}

TEST(CheckpointIo, EveryRankSavesRestoresAndReadsItsSamplesValidatedAndLeavesNoFile) {
    const SharedFolder folder("checkpoint-io");
    const TestResult result = run_registered_test(std::string(names::key), checkpoint_yaml(folder.path()));
    ASSERT_EQ(result.status, Status::pass) << result.reason;
    for (std::string_view name : {names::save_gbs, names::restore_gbs, names::sample_write_p50_us, names::sample_write_p99_us,
                                  names::sample_read_p50_us, names::sample_read_p99_us, names::sample_writes_per_s,
                                  names::sample_reads_per_s}) {
        const auto value = metric(result, name);
        ASSERT_TRUE(value) << name;
        EXPECT_TRUE(std::isfinite(*value) && *value > 0) << name << " = " << *value;
    }
    EXPECT_GE(*metric(result, names::sample_read_p99_us), *metric(result, names::sample_read_p50_us));
    EXPECT_GE(*metric(result, names::sample_write_p99_us), *metric(result, names::sample_write_p50_us));
    EXPECT_EQ(result.parameters.at("checkpoint_mib_used"), std::to_string(8 * world_size()));
    EXPECT_EQ(result.samples.size(), 4u);

    // One node here: its figures on its first rank, the job's on the test's first rank; the job's
    // save is the slowest rank's, so no rank saved its shard slower than the job did.
    const bool first = world_rank() == 0;
    for (std::string_view name : {names::node_save_s, names::node_restore_s, names::node_save_gbs, names::node_restore_gbs,
                                  names::job_save_s, names::job_restore_s, names::job_save_gbs, names::job_restore_gbs,
                                  names::job_sample_read_gbs, names::job_sample_reads_per_s})
        EXPECT_EQ(metric(result, name).has_value(), first) << name;
    const double my_save_s = 8.0 * 1024 * 1024 / (*metric(result, names::save_gbs) * 1e9);
    double job_save_s = first ? *metric(result, names::job_save_s) : 0.0;
    MPI_Bcast(&job_save_s, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    EXPECT_LE(my_save_s, job_save_s * (1 + 1e-9));
    if (first) {
        const double checkpoint_bytes = 8.0 * 1024 * 1024 * world_size();
        EXPECT_NEAR(*metric(result, names::job_save_gbs), checkpoint_bytes / job_save_s * 1e-9, 1e-9);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    EXPECT_EQ(folder.entry_count(), 0u);
}

TEST(CheckpointIo, APlantedWrongWordFailsTheRankHoldingItWithTheFileAndOffset) {
    const SharedFolder folder("checkpoint-io");
    const int culprit = world_size() - 1;
    const TestResult result = run_registered_test(
        std::string(names::key),
        checkpoint_yaml(folder.path(), "faults: [{kind: corrupt, test: checkpoint_io, rank: " + std::to_string(culprit) + "}]\n"));
    if (world_rank() == culprit) {
        EXPECT_EQ(result.status, Status::fail);
        EXPECT_EQ(cause_of(result), Cause::hardware);
        EXPECT_NE(result.reason.find("checkpoint_io on rank " + std::to_string(culprit) + ": read-back differs"), std::string::npos)
            << result.reason;
        EXPECT_NE(result.reason.find(".r" + std::to_string(culprit) + "."), std::string::npos) << "the shard's file: " << result.reason;
        EXPECT_NE(result.reason.find(": byte offset "), std::string::npos) << result.reason;
        EXPECT_FALSE(metric(result, names::save_gbs)) << "a wrong answer has no figure";
    } else {
        EXPECT_EQ(result.status, Status::pass) << result.reason;
    }
    // The job's checkpoint was not saved whole: no job figure.
    if (world_rank() == 0) EXPECT_FALSE(metric(result, names::job_save_gbs));
    MPI_Barrier(MPI_COMM_WORLD);
    EXPECT_EQ(folder.entry_count(), 0u);
}

TEST(CheckpointIo, AFullFileSystemIsRefusedBeforeAnyWriteAsConfiguration) {
    const SharedFolderOf<FullFileSystem> full;
    int available = world_rank() == 0 && full.owner()->available() ? 1 : 0;
    MPI_Bcast(&available, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (available == 0) GTEST_SKIP() << "no full file system to test on (mounting a tmpfs needs root)";
    const TestResult result = run_registered_test(std::string(names::key), checkpoint_yaml(full.path()));
    EXPECT_EQ(result.status, Status::fail);
    EXPECT_EQ(cause_of(result), Cause::configuration);
    EXPECT_NE(result.reason.find(full.path().string() + " has 0 MiB free; this node's ranks need " +
                                 std::to_string(8 * world_size()) + " MiB: free space or name another target"),
              std::string::npos) << result.reason;
    MPI_Barrier(MPI_COMM_WORLD);
    EXPECT_EQ(full.entry_count(), 1u) << "the filler alone";
}

TEST(CheckpointIo, ACheckpointLargerThanHalfTheMemoryIsRefusedBeforeAnyAllocation) {
    const SharedFolder folder("checkpoint-io");
    const TestResult result = run_registered_test(
        std::string(names::key), "params: {checkpoint_io: {target: '" + folder.path().string() + "', shard_mib: 1000000}}\n");
    EXPECT_EQ(result.status, Status::fail);
    EXPECT_EQ(cause_of(result), Cause::configuration);
    EXPECT_NE(result.reason.find("this node's ranks would hold " + std::to_string(1000000 * world_size()) +
                                 " MiB of checkpoint data in memory, more than half"),
              std::string::npos) << result.reason;
    MPI_Barrier(MPI_COMM_WORLD);
    EXPECT_EQ(folder.entry_count(), 0u);
}

TEST(CheckpointIo, BlockAndSampleSizesMustBeWholePages) {
    expect_refused(std::string(names::key), "params: {checkpoint_io: {block_kib: 6}}\n", "block_kib must be a multiple of 4");
    expect_refused(std::string(names::key), "params: {checkpoint_io: {sample_kib: 10}}\n", "sample_kib must be a multiple of 4");
    expect_refused(std::string(names::key), "params: {checkpoint_io: {shard_mib: 1, block_kib: 1020}}\n",
                   "is not a whole number of 1020 KiB blocks");
}

}  // namespace
}  // namespace shakedown::testing
