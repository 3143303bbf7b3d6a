// The random-ring figures congestion and congestion_nccl record in rank 0's samples (one row per
// measuring rank and ring; ring from 0; previous_rank and next_rank are the rank's neighbours in
// that ring, world ranks) and the analyzer's congestion rule reads to name the node that the
// degraded ring directions have in common: the one declaration of its columns.
#pragma once

#include "core/result.hpp"

#include <array>
#include <string_view>
#include <vector>

namespace shakedown::congestion_ring_columns {

// The tests that record the table, each under its own key: congestion (MPI) and congestion_nccl,
// whose declarations take their keys from here.
inline constexpr std::array<std::string_view, 2> tests = {"congestion", "congestion_nccl"};

// Result parameters beside the table: the ranks that measured (the others congested).
inline constexpr std::string_view measuring_ranks = "measuring_ranks";

inline constexpr std::string_view rank = "rank";
inline constexpr std::string_view node_index = "node_index";
inline constexpr std::string_view ring = "ring";
inline constexpr std::string_view previous_rank = "previous_rank";
inline constexpr std::string_view next_rank = "next_rank";
inline constexpr std::string_view baseline_latency_p50_us = "baseline_latency_p50_us";
inline constexpr std::string_view baseline_latency_p99_us = "baseline_latency_p99_us";
inline constexpr std::string_view baseline_bandwidth_gbs = "baseline_bandwidth_gbs";
inline constexpr std::string_view congested_latency_p50_us = "congested_latency_p50_us";
inline constexpr std::string_view congested_latency_p99_us = "congested_latency_p99_us";
inline constexpr std::string_view congested_bandwidth_gbs = "congested_bandwidth_gbs";

inline std::vector<SampleTable::Column> columns() {
    return {{std::string(rank), "rank"},
            {std::string(node_index), "index"},
            {std::string(ring), "index"},
            {std::string(previous_rank), "rank"},
            {std::string(next_rank), "rank"},
            {std::string(baseline_latency_p50_us), "us"},
            {std::string(baseline_latency_p99_us), "us"},
            {std::string(baseline_bandwidth_gbs), "GB/s"},
            {std::string(congested_latency_p50_us), "us"},
            {std::string(congested_latency_p99_us), "us"},
            {std::string(congested_bandwidth_gbs), "GB/s"}};
}

}  // namespace shakedown::congestion_ring_columns
