// One storage measurement on one file: sequential write (fsync included), sequential read,
// then random 4 KiB reads, every byte read back checked against the pattern written.
//
// Page cache: the file is opened with O_DIRECT where the file system allows it (the cache is
// bypassed); otherwise it is written buffered, fsync'ed and dropped from the cache with
// posix_fadvise(DONTNEED) before each read phase, so reads come from the device. On tmpfs /
// ramfs the file system is memory: the figures are RAM copies and say so (cache_mode).
#pragma once

#include "health/storage/file_io.hpp"  // pattern_word

#include <cstdint>
#include <filesystem>
#include <string>

namespace shakedown::health {

struct StorageOptions {
    std::uint64_t file_bytes = 0;     // multiple of block_bytes
    std::uint64_t block_bytes = 0;    // sequential transfer size, multiple of 4096
    double random_seconds = 1.0;      // how long the random-read phase lasts
    std::uint64_t random_read_cap = 200000;
    std::uint64_t seed = 1;           // pattern seed: different per writer
    bool try_direct = true;
    bool plant_corruption = false;    // test-only: one word written wrong, read-back must catch it
    std::string file_stem = "shakedown-storage";
};

struct StorageFigures {
    std::uint64_t bytes = 0;
    double write_seconds = 0.0;  // open to fsync done
    double read_seconds = 0.0;
    std::uint64_t random_reads = 0;
    double random_seconds = 0.0;  // time spent inside the random preads
    std::string cache_mode;       // "o_direct", "fadvise_dontneed", "memory_file_system"
    std::string validation_error; // first mismatch, empty when every word matched

    double write_gbs() const { return write_seconds > 0 ? bytes / write_seconds * 1e-9 : 0.0; }
    double read_gbs() const { return read_seconds > 0 ? bytes / read_seconds * 1e-9 : 0.0; }
    double random_iops() const { return random_seconds > 0 ? random_reads / random_seconds : 0.0; }
};

inline constexpr std::uint64_t random_read_bytes = 4096;

// Runs the three phases on a new file in `folder`, removed again before returning (also on
// an exception: std::system_error with the path for I/O errors).
StorageFigures measure_storage(const std::filesystem::path& folder, const StorageOptions& options);

}  // namespace shakedown::health
