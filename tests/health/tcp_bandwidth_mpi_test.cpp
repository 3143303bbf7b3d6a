// tcp_bandwidth through the driver's path on 2 and 4 ranks of this machine (scope ranks: every
// rank a party, over loopback): every ordered pair once in the matrix, figures that a planted
// delay lowers, a planted wrong byte named by pair, stream and offset, a port in use refused, and
// one node waived under scope nodes.
#include "support/mpi_world.hpp"
#include "support/result_lookup.hpp"
#include "support/run_test.hpp"

#include "health/network/tcp_bandwidth_names.hpp"
#include "health/network/tcp_socket.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <system_error>

#include <algorithm>
#include <cmath>
#include <optional>

namespace shakedown::testing {
namespace {

namespace names = health::tcp_bandwidth_names;

// The figure, NaN when the result lacks it (every comparison with NaN then fails).
double figure(const TestResult& result, std::string_view name) {
    return metric(result, std::string(name)).value_or(std::nan(""));
}

const std::string loopback_pairs =
    "params: {tcp_bandwidth: {scope: ranks, interfaces: [lo], seconds: 0.3, streams: 2, round_trips: 50}}\n";

TEST(TcpBandwidth, EveryOrderedPairOnceValidated) {
    const TestResult result = run_registered_test("tcp_bandwidth", loopback_pairs);
    ASSERT_EQ(result.status, Status::pass) << result.reason;
    for (const auto name : {names::send_gbits_min, names::send_gbits_median, names::receive_gbits_min,
                            names::receive_gbits_median, names::duplex_gbits_min}) {
        const auto metric = find_metric(result, std::string(name));
        ASSERT_TRUE(metric) << name;
        EXPECT_GT(metric->value, 0.05) << name;  // loopback moves gigabits
        EXPECT_FALSE(metric->nominal) << name;   // no line rate for lo
    }
    EXPECT_LE(figure(result, names::send_gbits_min), figure(result, names::send_gbits_max));
    const double rtt = figure(result, names::rtt_p50_us);
    EXPECT_GT(rtt, 0.0);
    EXPECT_LE(rtt, figure(result, names::rtt_p99_us));
    if (world_rank() != 0) return;
    EXPECT_EQ(result.parameters.at(std::string(names::interfaces_measured)), "lo");
    const int size = world_size();
    ASSERT_EQ(result.samples.size(), static_cast<std::size_t>(size * (size - 1)));
    const auto src = *result.samples.column_index(link_matrix_columns::src);
    const auto dst = *result.samples.column_index(link_matrix_columns::dst);
    const auto bandwidth = *result.samples.column_index(link_matrix_columns::bandwidth_gbs);
    std::vector<std::pair<double, double>> pairs;
    for (const auto& row : result.samples.rows()) {
        pairs.emplace_back(row[src], row[dst]);
        EXPECT_NE(row[src], row[dst]);
        EXPECT_GT(row[bandwidth], 0.0);
    }
    std::sort(pairs.begin(), pairs.end());
    EXPECT_EQ(std::adjacent_find(pairs.begin(), pairs.end()), pairs.end()) << "an ordered pair measured twice";
}

TEST(TcpBandwidth, PlantedDelayLowersWhatThatRankSends) {
    const TestResult result = run_registered_test(
        "tcp_bandwidth",
        "params: {tcp_bandwidth: {scope: ranks, interfaces: [lo], seconds: 0.5, streams: 1, round_trips: 20}}\n"
        "faults: [{kind: delay, test: tcp_bandwidth, rank: 1, seconds: 0.4}]\n");
    ASSERT_EQ(result.status, Status::pass) << result.reason;
    // Each stream pauses 0.4 s of its 0.5 s: what rank 1 sends arrives at a fraction of the rate.
    if (world_rank() == 1)
        EXPECT_LT(figure(result, names::send_gbits_median), 0.5 * figure(result, names::receive_gbits_median));
}

TEST(TcpBandwidth, PlantedWrongByteNamedByPairStreamAndOffset) {
    const TestResult result =
        run_registered_test("tcp_bandwidth", loopback_pairs + "faults: [{kind: corrupt, test: tcp_bandwidth, rank: 1}]\n");
    // Rank 1's peers receive its flipped byte; rank 1 itself receives only good data.
    if (world_rank() == 1) {
        EXPECT_EQ(result.status, Status::pass) << result.reason;
        return;
    }
    ASSERT_EQ(result.status, Status::fail);
    EXPECT_NE(result.reason.find("tcp_bandwidth: wrong or lost bytes"), std::string::npos) << result.reason;
    EXPECT_NE(result.reason.find(" rank 1 -> "), std::string::npos) << result.reason;
    EXPECT_NE(result.reason.find(fmt::format(" rank {} on lo (alone): stream 0 byte 1000: ", world_rank())),
              std::string::npos)
        << result.reason;
}

TEST(TcpBandwidth, PortInUseRefusedAndOneNodeWaived) {
    // Rank 0 holds a port; every rank asked to listen on it is refused (rank 0's socket is there).
    std::optional<health::TcpListener> taken;
    int port = 0;
    if (world_rank() == 0) {
        taken.emplace("127.0.0.1", 0);
        port = taken->port();
    }
    MPI_Bcast(&port, 1, MPI_INT, 0, MPI_COMM_WORLD);
    const std::string yaml = "params: {tcp_bandwidth: {scope: ranks, interfaces: [lo], port: " + std::to_string(port) +
                             ", port_range: 1}}\n";
    // Refused on the node (exit 2, to fix); with one node every rank is the refusing node.
    const TestResult refused = run_registered_test("tcp_bandwidth", yaml);
    EXPECT_EQ(refused.status, Status::error);
    EXPECT_TRUE(refused.bad_input);
    EXPECT_EQ(refused.cause, Cause::configuration);
    EXPECT_NE(refused.reason.find(fmt::format("port {} is taken", port)), std::string::npos) << refused.reason;
    expect_refused("tcp_bandwidth", "params: {tcp_bandwidth: {streams: 0}}\n",
                   "'params.tcp_bandwidth.streams' must be between 1 and 128");

    const TestResult waived = run_registered_test("tcp_bandwidth", "params: {tcp_bandwidth: {interfaces: [lo]}}\n");
    EXPECT_EQ(waived.status, Status::waived);
    EXPECT_NE(waived.reason.find("2 nodes with scope nodes"), std::string::npos) << waived.reason;
}

// A range of ports: a listener passes over a taken one to the next free; a range all taken is
// refused, naming it.
TEST(TcpBandwidth, APortRangePassesOverATakenPortAndAllTakenIsRefused) {
    // Rank 0 holds two neighbouring ports P and P + 1 (a kernel-picked P whose neighbour is free).
    std::optional<health::TcpListener> first, second;
    int port = 0;
    if (world_rank() == 0) {
        for (int attempt = 0; attempt < 20 && !second; ++attempt) {
            first.emplace("127.0.0.1", 0);
            try {
                second.emplace("127.0.0.1", static_cast<std::uint16_t>(first->port() + 1));
            } catch (const std::system_error&) {
                first.reset();
            }
        }
        if (second) port = first->port();
    }
    MPI_Bcast(&port, 1, MPI_INT, 0, MPI_COMM_WORLD);
    ASSERT_NE(port, 0) << "rank 0 found no two neighbouring free ports";
    auto yaml = [&](int range) {
        return fmt::format("params: {{tcp_bandwidth: {{scope: ranks, interfaces: [lo], port: {}, port_range: {}, "
                           "seconds: 0.1, round_trips: 10}}}}\n",
                           port, range);
    };
    const TestResult refused = run_registered_test("tcp_bandwidth", yaml(2));
    EXPECT_EQ(refused.status, Status::error);
    EXPECT_EQ(refused.cause, Cause::configuration);
    EXPECT_NE(refused.reason.find(fmt::format("ports {}-{} are all taken on 127.0.0.1", port, port + 1)), std::string::npos)
        << refused.reason;

    // With room past the two taken ports every rank listens on a later one and the pairs are measured.
    const TestResult measured = run_registered_test("tcp_bandwidth", yaml(64));
    EXPECT_NE(measured.status, Status::error) << measured.reason;
    EXPECT_FALSE(measured.metrics.empty()) << measured.reason;
}

}  // namespace
}  // namespace shakedown::testing
