// The sample table of congestion and congestion_nccl, declared once: one row per measuring rank
// on rank 0, written by congestion_figures.cpp in this column order.
#pragma once

#include "core/result.hpp"

#include <vector>

namespace shakedown::mpi {

inline const std::vector<SampleTable::Column>& congestion_sample_columns() {
    static const std::vector<SampleTable::Column> columns{{"rank", "rank"},
                                                           {"node_index", "index"},
                                                           {"baseline_latency_p50_us", "us"},
                                                           {"baseline_latency_p99_us", "us"},
                                                           {"baseline_bandwidth_gbs", "GB/s"},
                                                           {"congested_latency_p50_us", "us"},
                                                           {"congested_latency_p99_us", "us"},
                                                           {"congested_bandwidth_gbs", "GB/s"}};
    return columns;
}

}  // namespace shakedown::mpi
