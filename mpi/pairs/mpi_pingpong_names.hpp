// The names of `mpi_pingpong`'s figures another layer reads, declared once: its declaration
// (mpi_pingpong_spec.cpp) and the analyzer read these constants.
#pragma once

#include "core/sweep_figure_declaration.hpp"

#include <string_view>

namespace shakedown::mpi::mpi_pingpong_names {

inline constexpr std::string_view key = "mpi_pingpong";

// Sample columns (rank 0: one row per peer, size and batch).
inline constexpr std::string_view size_column = "size";
inline constexpr std::string_view intra_node_column = "intra_node";
inline constexpr std::string_view latency_column = "latency_us";

inline constexpr SweepFigureDeclaration latency_figure{
    .test = key,
    .id = "sweep-mpi-pingpong-latency",
    .title = "mpi_pingpong: latency vs message size (rank 0's pairs)",
    .y_label = "latency (us)",
    .size_column = size_column,
    .value_column = latency_column,
    .split = SweepSeriesSplit::intra_or_inter_node,
    .split_column = intra_node_column,
    .caption = "median half round trip over rank 0's batches and peers per size"};

}  // namespace shakedown::mpi::mpi_pingpong_names
