// The names of `tcp_bandwidth`'s figures, declared once: its declaration (tcp_bandwidth_spec.cpp),
// the test and the analyzer read these constants.
#pragma once

#include "comm/link_matrix_columns.hpp"

#include <string_view>
#include <vector>

namespace shakedown::health::tcp_bandwidth_names {

inline constexpr std::string_view key = "tcp_bandwidth";

// Per node leader (per rank with scope ranks), over its peers and the measured interfaces: what
// it sent and received with one direction at a time, and the lower of the two while both ran.
inline constexpr std::string_view send_gbits_min = "tcp_bandwidth.send_gbits_min";
inline constexpr std::string_view send_gbits_median = "tcp_bandwidth.send_gbits_median";
inline constexpr std::string_view send_gbits_max = "tcp_bandwidth.send_gbits_max";  // bounded by the line rate
inline constexpr std::string_view receive_gbits_min = "tcp_bandwidth.receive_gbits_min";
inline constexpr std::string_view receive_gbits_median = "tcp_bandwidth.receive_gbits_median";
inline constexpr std::string_view duplex_gbits_min = "tcp_bandwidth.duplex_gbits_min";
// Its links in the link matrix's unit, as allpairs reports them: the slowest and the median of
// every direction it sent or received alone, GB/s (what the analyzer's link findings carry).
inline constexpr std::string_view link_min_gbs = "tcp_bandwidth.link_min_gbs";
inline constexpr std::string_view link_median_gbs = "tcp_bandwidth.link_median_gbs";
inline constexpr std::string_view rtt_p50_us = "tcp_bandwidth.rtt_p50_us";  // the median over its peers
inline constexpr std::string_view rtt_p99_us = "tcp_bandwidth.rtt_p99_us";  // the highest over its peers

// The samples (rank 0: every ordered pair of every measured interface) are a link matrix
// (src/comm/link_matrix_columns.hpp: bandwidth_gbs in GB/s one direction at a time, latency_us
// half the median round trip), so the analyzer localizes slow nodes and links from them as it
// does allpairs', plus these columns.
inline constexpr std::string_view interface_column = "interface";    // index into interfaces_measured
inline constexpr std::string_view duplex_gbs_column = "duplex_gbs";  // the same direction while the reverse ran
inline constexpr std::string_view rtt_p99_column = "rtt_p99_us";

// Rank 0's parameter: the measured interfaces' names, comma-separated, in interface_column order.
inline constexpr std::string_view interfaces_measured = "interfaces_measured";

// What the analyzer localizes: one matrix per measured interface.
inline constexpr link_matrix_columns::LinkMatrixSource link_matrix{key, link_min_gbs, link_median_gbs, interface_column,
                                                                   interfaces_measured};

inline std::vector<SampleTable::Column> sample_columns() {
    auto columns = link_matrix_columns::columns();
    columns.push_back({std::string(interface_column), "index"});
    columns.push_back({std::string(duplex_gbs_column), "GB/s"});
    columns.push_back({std::string(rtt_p99_column), "us"});
    return columns;
}

}  // namespace shakedown::health::tcp_bandwidth_names
