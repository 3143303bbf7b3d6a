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

// A test whose rank-0 samples are a link matrix (these columns, perhaps more), declared beside the
// test; the analyzer localizes slow nodes, links and groups from every declared one.
struct LinkMatrixSource {
    std::string_view test;         // the test's key
    std::string_view link_metric;  // what a slow link's findings carry: the rank's slowest link, GB/s
    std::string_view node_metric;  // what a slow node's or group's carry: the rank's median link, GB/s
    // Where one test measures several networks: the column whose value names the network of a row
    // (an index into rank 0's parameter `networks_parameter`, comma-separated); each is localized
    // on its own. Empty: one matrix.
    std::string_view network_column = {};
    std::string_view networks_parameter = {};
};

inline std::vector<SampleTable::Column> columns() {
    return {{std::string(src), "rank"},
            {std::string(dst), "rank"},
            {std::string(intra_node), "flag"},
            {std::string(latency_us), "us"},
            {std::string(bandwidth_gbs), "GB/s"}};
}

}  // namespace shakedown::link_matrix_columns
