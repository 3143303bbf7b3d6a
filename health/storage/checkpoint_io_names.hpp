// The names of `checkpoint_io`'s figures, declared once: its declaration (checkpoint_io_spec.cpp)
// and the test read these constants.
#pragma once

#include <string_view>

namespace shakedown::health::checkpoint_io_names {

inline constexpr std::string_view key = "checkpoint_io";

// Per rank, every rank at once.
inline constexpr std::string_view save_gbs = "checkpoint_io.save_gbs";        // its shard: writes and fsync
inline constexpr std::string_view restore_gbs = "checkpoint_io.restore_gbs";  // its shard read back
inline constexpr std::string_view sample_write_p50_us = "checkpoint_io.sample_write_p50_us";
inline constexpr std::string_view sample_write_p99_us = "checkpoint_io.sample_write_p99_us";
inline constexpr std::string_view sample_read_p50_us = "checkpoint_io.sample_read_p50_us";
inline constexpr std::string_view sample_read_p99_us = "checkpoint_io.sample_read_p99_us";
inline constexpr std::string_view sample_writes_per_s = "checkpoint_io.sample_writes_per_s";
inline constexpr std::string_view sample_reads_per_s = "checkpoint_io.sample_reads_per_s";
// Per node, on its first rank: the node's shards over its slowest rank's time.
inline constexpr std::string_view node_save_s = "checkpoint_io.node_save_s";
inline constexpr std::string_view node_restore_s = "checkpoint_io.node_restore_s";
inline constexpr std::string_view node_save_gbs = "checkpoint_io.node_save_gbs";
inline constexpr std::string_view node_restore_gbs = "checkpoint_io.node_restore_gbs";
// Per job, on the test's first rank: the whole checkpoint over the slowest rank's time.
inline constexpr std::string_view job_save_s = "checkpoint_io.job_save_s";
inline constexpr std::string_view job_restore_s = "checkpoint_io.job_restore_s";
inline constexpr std::string_view job_save_gbs = "checkpoint_io.job_save_gbs";
inline constexpr std::string_view job_restore_gbs = "checkpoint_io.job_restore_gbs";
inline constexpr std::string_view job_sample_read_gbs = "checkpoint_io.job_sample_read_gbs";
inline constexpr std::string_view job_sample_reads_per_s = "checkpoint_io.job_sample_reads_per_s";

// The samples table: one row per rank and phase.
inline constexpr std::string_view phase_column = "phase";
inline constexpr std::string_view seconds_column = "seconds";
inline constexpr std::string_view bytes_column = "bytes";
enum class Phase { save = 0, restore = 1, sample_write = 2, sample_read = 3 };

}  // namespace shakedown::health::checkpoint_io_names
