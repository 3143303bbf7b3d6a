// checkpoint_io's files without MPI: a shard saved and restored clean, a planted wrong word named
// with its file and byte offset, sample files read back in a shuffled order with a damaged one
// named, every file and folder removed also on a throw, and a tmpfs that runs out mid-write
// (mounted for the test: root only) giving ENOSPC with nothing left behind.
#include "health/storage/checkpoint_files.hpp"
#include "temp_folder.hpp"
#include "../support/full_file_system.hpp"

#include <gtest/gtest.h>

#include <cerrno>
#include <fstream>
#include <system_error>

namespace shakedown::health {
namespace {

using shakedown::testing::FullFileSystem;
using shakedown::testing::TempFolder;

constexpr std::uint64_t kib = 1024;

ShardOptions small_shard() {
    ShardOptions options;
    options.shard_bytes = 1024 * kib;
    options.block_bytes = 64 * kib;
    options.seed = 7;
    options.stem = "unit-shard";
    return options;
}

TEST(CheckpointShard, SavedAndRestoredCleanThenRemoved) {
    const TempFolder folder("checkpoint-shard");
    {
        CheckpointShard shard(folder.path(), small_shard());
        EXPECT_GT(shard.save(), 0.0);
        EXPECT_EQ(std::filesystem::file_size(shard.path()), 1024 * kib);
        const CheckedRead read = shard.restore();
        EXPECT_GT(read.seconds, 0.0);
        EXPECT_EQ(read.mismatch, "");
    }
    EXPECT_TRUE(folder.entries().empty());
}

TEST(CheckpointShard, APlantedWrongWordIsNamedWithItsFileAndByteOffset) {
    const TempFolder folder("checkpoint-shard");
    ShardOptions options = small_shard();
    options.plant_corruption = true;
    CheckpointShard shard(folder.path(), options);
    shard.save();
    const CheckedRead read = shard.restore();
    // The middle word of the shard.
    const std::uint64_t offset = 512 * kib;
    EXPECT_NE(read.mismatch.find(shard.path().filename().string() + ": byte offset " + std::to_string(offset) + " reads"),
              std::string::npos) << read.mismatch;
}

TEST(SampleFiles, WrittenAndReadBackInAShuffledOrderThenTheFolderIsGone) {
    const TempFolder folder("checkpoint-samples");
    std::filesystem::path own;
    {
        SampleFiles samples(folder.path(), "unit-samples", 25, 8 * kib, 3, false);
        own = samples.folder();
        EXPECT_EQ(own.parent_path(), folder.path());
        const std::vector<double> writes = samples.write_all();
        ASSERT_EQ(writes.size(), 25u);
        for (double seconds : writes) EXPECT_GT(seconds, 0.0);
        EXPECT_EQ(std::distance(std::filesystem::directory_iterator(own), {}), 25);
        const SampleFiles::Reads reads = samples.read_shuffled();
        EXPECT_EQ(reads.seconds.size(), 25u);
        EXPECT_GT(reads.wall_seconds, 0.0);
        EXPECT_EQ(reads.mismatch, "");
    }
    EXPECT_FALSE(std::filesystem::exists(own));
    EXPECT_TRUE(folder.entries().empty());
}

TEST(SampleFiles, ADamagedFileIsNamedWithItsOffset) {
    const TempFolder folder("checkpoint-samples");
    SampleFiles samples(folder.path(), "unit-samples", 10, 8 * kib, 3, false);
    samples.write_all();
    {
        std::fstream damaged(samples.folder() / "sample-0000004", std::ios::in | std::ios::out | std::ios::binary);
        damaged.seekp(4096);
        damaged.put('\x5a');
    }
    const SampleFiles::Reads reads = samples.read_shuffled();
    EXPECT_NE(reads.mismatch.find("sample-0000004: byte offset 4096 reads"), std::string::npos) << reads.mismatch;
}

TEST(SampleFiles, AThrowHalfWayStillRemovesEveryFileMade) {
    const TempFolder folder("checkpoint-samples");
    try {
        SampleFiles samples(folder.path(), "unit-samples", 5, 8 * kib, 3, false);
        samples.write_all();
        throw std::runtime_error("midway");
    } catch (const std::runtime_error&) {
    }
    EXPECT_TRUE(folder.entries().empty());
}

TEST(CheckpointShard, ASmallTmpfsRunningOutMidWriteGivesEnospcAndLeavesNoFile) {
    FullFileSystem full;
    if (!full.available()) GTEST_SKIP() << "no small file system to test on: " << full.why_not();
    full.with_space([&] {
        ShardOptions options = small_shard();  // 1 MiB on a 256 KiB tmpfs
        try {
            CheckpointShard shard(full.path(), options);
            shard.save();
            ADD_FAILURE() << "a 1 MiB shard fit a 256 KiB file system";
        } catch (const std::system_error& error) {
            EXPECT_EQ(error.code().value(), ENOSPC);
            EXPECT_NE(std::string(error.what()).find("writing " + (full.path() / "unit-shard").string()), std::string::npos)
                << error.what();
        }
        EXPECT_TRUE(std::filesystem::is_empty(full.path()));
    });
}

}  // namespace
}  // namespace shakedown::health
