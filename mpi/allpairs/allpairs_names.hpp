// The names of `allpairs`' figures the analyzer reads, declared once: its declaration
// (allpairs_spec.cpp) and the analyzer read these constants.
#pragma once

#include "comm/link_matrix_columns.hpp"

#include <string_view>

namespace shakedown::mpi::allpairs_names {

inline constexpr std::string_view key = "allpairs";
inline constexpr std::string_view inter_node_bandwidth_min_gbs = "allpairs.inter_node_bandwidth_min_gbs";
inline constexpr std::string_view inter_node_bandwidth_median_gbs = "allpairs.inter_node_bandwidth_median_gbs";
// This rank's fastest link: bounded by the node's memory (intra) or its network (inter).
inline constexpr std::string_view intra_node_bandwidth_max_gbs = "allpairs.intra_node_bandwidth_max_gbs";
inline constexpr std::string_view inter_node_bandwidth_max_gbs = "allpairs.inter_node_bandwidth_max_gbs";

// Rank 0's samples: the link matrix (src/comm/link_matrix_columns.hpp).
inline constexpr link_matrix_columns::LinkMatrixSource link_matrix{key, inter_node_bandwidth_min_gbs,
                                                                   inter_node_bandwidth_median_gbs};

}  // namespace shakedown::mpi::allpairs_names
