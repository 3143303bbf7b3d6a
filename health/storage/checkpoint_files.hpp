// One rank's files in `checkpoint_io`: its checkpoint shard (written in large transfers and
// fsync'ed, then read back) and its sample files (many small files, the training-input pattern:
// written once, then read whole in a shuffled order). Every byte read is checked against the
// pattern written. Every file is created exclusively under a name nobody else uses and removed by
// its owner's destructor, also on a throw; a file that replaced ours in the meantime is left alone.
//
// As a training job's checkpoint is, the data is in memory before the save starts: the pattern is
// made before the clock starts and checked after it stops, so the timed phase is I/O alone with no
// gap (a rank making its pattern between writes would leave the storage to the others and read as
// faster together than it is). A read lands in memory poisoned first, so a stale buffer can never
// pass the check.
//
// Page cache: O_DIRECT where the caller found the file system takes it; otherwise every file is
// fsync'ed and dropped from the cache (posix_fadvise) before it is read, so reads come from the
// device. On tmpfs the file system is memory and the figures are RAM copies (the test says so).
#pragma once

#include "health/storage/file_io.hpp"
#include "health/storage/scratch_file.hpp"

#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

namespace shakedown::health {

struct ShardOptions {
    std::uint64_t shard_bytes = 0;  // a multiple of block_bytes
    std::uint64_t block_bytes = 0;  // a multiple of 4 KiB
    std::uint64_t seed = 1;         // the pattern's seed: one per rank
    bool direct = false;
    bool plant_corruption = false;  // test-only: one word written wrong, the restore must name it
    std::string stem = "shakedown-checkpoint";
};

// What a read-back found: its time and the first word that was not the pattern ("" when none).
struct CheckedRead {
    double seconds = 0.0;
    std::string mismatch;
};

class CheckpointShard {
public:
    // Creates the shard's file in `folder` (throws std::system_error naming it when it cannot) and
    // the shard's data in memory (shard_bytes).
    CheckpointShard(const std::filesystem::path& folder, ShardOptions options);

    // Every block written and the file fsync'ed: the seconds from the first write to the fsync's
    // return. Throws std::system_error naming the file and offset (ENOSPC on a full file system).
    double save();
    // The shard read back into memory in blocks (timed), then every word checked.
    CheckedRead restore();

    const std::filesystem::path& path() const { return file_.path(); }

private:
    ShardOptions options_;
    ScratchFile file_;
    AlignedBuffer buffer_;
};

class SampleFiles {
public:
    // Makes a new folder of its own in `folder` ("<stem>.XXXXXX") and every file's data in memory
    // (count x bytes); no file is written yet.
    SampleFiles(const std::filesystem::path& folder, const std::string& stem, int count, std::uint64_t bytes,
                std::uint64_t seed, bool direct);
    SampleFiles(const SampleFiles&) = delete;
    SampleFiles& operator=(const SampleFiles&) = delete;
    ~SampleFiles();  // every file it made, then its folder

    // Each file created, written, fsync'ed and closed; the seconds of each. Throws std::system_error.
    std::vector<double> write_all();
    // Every file opened, read whole and closed in a shuffled order, then each checked; the seconds
    // of each and of the whole phase.
    struct Reads {
        std::vector<double> seconds;
        double wall_seconds = 0.0;
        std::string mismatch;
    };
    Reads read_shuffled();

    const std::filesystem::path& folder() const { return folder_; }

private:
    std::filesystem::path file_path(int index) const;
    std::uint64_t file_seed(int index) const;
    std::span<std::uint64_t> file_words(int index) const;

    std::filesystem::path folder_;
    int count_;
    std::uint64_t bytes_;
    std::uint64_t seed_;
    bool direct_;
    struct MadeFile {
        std::filesystem::path path;
        dev_t device = 0;
        ino_t inode = 0;
    };
    std::vector<MadeFile> made_;  // the files created so far: the only ones removed
    bool folder_made_ = false;
    AlignedBuffer buffer_;
};

}  // namespace shakedown::health
