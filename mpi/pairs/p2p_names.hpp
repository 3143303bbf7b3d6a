// The names of `p2p`'s figures another layer reads, declared once: its declaration (p2p_spec.cpp)
// and the analyzer read these constants.
#pragma once

#include "core/sweep_figure_declaration.hpp"

#include <array>
#include <string_view>

namespace shakedown::mpi::p2p_names {

inline constexpr std::string_view key = "p2p";

// The worst pair's streaming bandwidth at the largest size, nominal: the link's line rate.
inline constexpr std::string_view inter_node_bandwidth_gbs = "p2p.inter_node_bandwidth_gbs";
inline constexpr std::string_view intra_node_bandwidth_gbs = "p2p.intra_node_bandwidth_gbs";
// This rank's fastest pair at the largest size: bounded by the node's memory (intra) or network (inter).
inline constexpr std::string_view intra_node_bandwidth_max_gbs = "p2p.intra_node_bandwidth_max_gbs";
inline constexpr std::string_view inter_node_bandwidth_max_gbs = "p2p.inter_node_bandwidth_max_gbs";

// Sample columns (rank 0: one row per pair and size).
inline constexpr std::string_view size_column = "size";
inline constexpr std::string_view intra_node_column = "intra_node";
inline constexpr std::string_view latency_median_column = "latency_median_us";
inline constexpr std::string_view bandwidth_column = "bandwidth_gbs";

inline constexpr std::array<SweepNominalLine, 2> bandwidth_nominals{
    {{inter_node_bandwidth_gbs, "inter-node"}, {intra_node_bandwidth_gbs, "intra-node"}}};

inline constexpr SweepFigureDeclaration bandwidth_figure{
    .test = key,
    .id = "sweep-p2p-bandwidth",
    .title = "p2p: bandwidth vs message size (OSU style, rank 0's pairs)",
    .y_label = "bandwidth (GB/s)",
    .size_column = size_column,
    .value_column = bandwidth_column,
    .split = SweepSeriesSplit::intra_or_inter_node,
    .split_column = intra_node_column,
    .nominal_lines = bandwidth_nominals,
    .caption = "median over rank 0's pairs per size; dashed: nominal link bandwidth where the run carries one"};

inline constexpr SweepFigureDeclaration latency_figure{.test = key,
                                                       .id = "sweep-p2p-latency",
                                                       .title = "p2p: latency vs message size (rank 0's pairs)",
                                                       .y_label = "latency (us)",
                                                       .size_column = size_column,
                                                       .value_column = latency_median_column,
                                                       .split = SweepSeriesSplit::intra_or_inter_node,
                                                       .split_column = intra_node_column,
                                                       .caption = "median half round trip over rank 0's pairs per size"};

}  // namespace shakedown::mpi::p2p_names
