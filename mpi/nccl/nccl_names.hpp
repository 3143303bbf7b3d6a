// The names of `nccl`'s figures another layer reads, declared once: its declaration
// (nccl_spec.cpp) and the analyzer read these constants.
#pragma once

#include "core/sweep_figure_declaration.hpp"

#include <array>
#include <string_view>

namespace shakedown::mpi {

// The collectives nccl knows, in the order they run (also the metric names' words and the
// samples' collective index).
inline constexpr std::array<std::string_view, 7> nccl_collective_names = {"all_reduce", "all_gather", "reduce_scatter",
                                                                          "alltoall",   "broadcast",  "reduce",
                                                                          "sendrecv"};

namespace nccl_names {

inline constexpr std::string_view key = "nccl";

// Bus bandwidth at the largest size (nominal: the fabric's) and at nccl-tests' reference sizes.
inline constexpr std::string_view all_reduce_busbw_gbs = "nccl.all_reduce_busbw_gbs";
inline constexpr std::string_view all_reduce_busbw_8mib_gbs = "nccl.all_reduce_busbw_8mib_gbs";
inline constexpr std::string_view all_reduce_busbw_512mib_gbs = "nccl.all_reduce_busbw_512mib_gbs";
inline constexpr std::string_view all_reduce_busbw_8gib_gbs = "nccl.all_reduce_busbw_8gib_gbs";

// Sample columns (rank 0: one row per collective, size and placement).
inline constexpr std::string_view collective_column = "collective";  // index into nccl_collective_names
inline constexpr std::string_view size_column = "size";
inline constexpr std::string_view in_place_column = "in_place";
inline constexpr std::string_view job_busbw_column = "job_busbw_gbs";

inline constexpr double mib = 1 << 20;
inline constexpr std::array<SweepNominalLine, 1> busbw_nominals{{{all_reduce_busbw_gbs, "all_reduce busbw"}}};
inline constexpr std::array<SweepCalibratedPoint, 3> busbw_calibrated{{{all_reduce_busbw_8mib_gbs, 8 * mib},
                                                                       {all_reduce_busbw_512mib_gbs, 512 * mib},
                                                                       {all_reduce_busbw_8gib_gbs, 8192 * mib}}};

inline constexpr SweepFigureDeclaration busbw_figure{
    .test = key,
    .id = "sweep-nccl-busbw",
    .title = "nccl: bus bandwidth vs message size (the job's, out of place)",
    .y_label = "busbw (GB/s)",
    .size_column = size_column,
    .value_column = job_busbw_column,
    .split = SweepSeriesSplit::by_index_name,
    .split_column = collective_column,
    .index_names = nccl_collective_names,
    .skip_column = in_place_column,
    .nominal_lines = busbw_nominals,
    .calibrated_points = busbw_calibrated,
    .calibrated_label = "all_reduce",
    .caption = "job bus bandwidth per collective and size, as nccl-tests prints it; diamonds: the built-in calibrated "
               "all_reduce references at nccl-tests' sizes for this GPU and rank count, where one exists"};

}  // namespace nccl_names
}  // namespace shakedown::mpi
