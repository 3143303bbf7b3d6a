// The all-pairs link matrix as allpairs records it in rank 0's samples (one row per ordered rank
// pair, world ranks) and the analyzer localizes slow nodes, links and switches from it: the one
// declaration of its columns.
#pragma once

#include "core/result.hpp"

#include <string_view>
#include <vector>

namespace shakedown::link_matrix_columns {

inline constexpr std::string_view src = "src";
inline constexpr std::string_view dst = "dst";
inline constexpr std::string_view intra_node = "intra_node";
inline constexpr std::string_view latency_us = "latency_us";
inline constexpr std::string_view bandwidth_gbs = "bandwidth_gbs";

inline std::vector<SampleTable::Column> columns() {
    return {{std::string(src), "rank"},
            {std::string(dst), "rank"},
            {std::string(intra_node), "flag"},
            {std::string(latency_us), "us"},
            {std::string(bandwidth_gbs), "GB/s"}};
}

}  // namespace shakedown::link_matrix_columns
