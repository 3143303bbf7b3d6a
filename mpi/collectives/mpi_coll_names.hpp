// The names of `mpi_coll`'s figures another layer reads, declared once: its declaration
// (mpi_coll_spec.cpp), the test and the analyzer read these constants.
#pragma once

#include "core/sweep_figure_declaration.hpp"

#include <array>
#include <string_view>

namespace shakedown::mpi {

// The collectives mpi_coll knows, in the order they run (also the metric names' words and the
// samples' collective index).
inline constexpr std::array<std::string_view, 6> mpi_collective_names = {"allreduce", "allgather", "reduce_scatter",
                                                                         "alltoall",  "bcast",     "barrier"};

namespace mpi_coll_names {

inline constexpr std::string_view key = "mpi_coll";

inline constexpr std::string_view allreduce_busbw_gbs = "mpi_coll.allreduce_busbw_gbs";  // nominal: the fabric's
// This rank's own time over the other ranks' median; on rank 0 the slowest rank and its ratio.
inline constexpr std::string_view rank_time_ratio = "mpi_coll.rank_time_ratio";
inline constexpr std::string_view slowest_rank = "mpi_coll.slowest_rank";
inline constexpr std::string_view slowest_rank_ratio = "mpi_coll.slowest_rank_ratio";

// Sample columns (rank 0: one row per collective and size).
inline constexpr std::string_view collective_column = "collective";  // index into mpi_collective_names
inline constexpr std::string_view size_column = "size";
inline constexpr std::string_view job_busbw_column = "job_busbw_gbs";

inline constexpr std::array<SweepNominalLine, 1> busbw_nominals{{{allreduce_busbw_gbs, "allreduce busbw"}}};

inline constexpr SweepFigureDeclaration busbw_figure{
    .test = key,
    .id = "sweep-mpi-coll-busbw",
    .title = "mpi_coll: bus bandwidth vs message size (the job's)",
    .y_label = "busbw (GB/s)",
    .size_column = size_column,
    .value_column = job_busbw_column,
    .split = SweepSeriesSplit::by_index_name,
    .split_column = collective_column,
    .index_names = mpi_collective_names,
    .nominal_lines = busbw_nominals,
    .caption = "job bus bandwidth (nccl-tests' factors, the slowest rank's time) per collective and size"};

}  // namespace mpi_coll_names
}  // namespace shakedown::mpi
