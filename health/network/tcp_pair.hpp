// One pair's share of a tcp_bandwidth round: the initiator's direction, the peer's, both at once,
// then the round trip, each phase started together by every rank of the test (a barrier), so all
// pairs of a round run at once and none overlaps another round's. Idle ranks take part in the
// barriers only.
#pragma once

#include "health/network/tcp_interfaces.hpp"
#include "health/network/tcp_socket.hpp"

#include <mpi.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace shakedown::health {

inline constexpr std::uint32_t phases_per_pair = 4;

struct PairSettings {
    int streams = 8;
    double seconds = 2.0;
    int round_trips = 200;
    bool corrupt = false;  // planted on this rank's sends
    double delay_s = 0.0;  // planted on this rank's sends
};

struct PairJob {
    MPI_Comm comm = MPI_COMM_NULL;
    int me = 0;
    int peer = -1;  // -1: this rank sits the round out
    bool initiator = false;
    std::uint32_t first_phase = 0;  // unique per interface and round; the pair uses phases_per_pair of them
    TcpEndpoint peer_endpoint;
    std::string me_name, peer_name, interface;  // how problems name the direction: "node1 -> node2 on eth0"
};

struct PairOutcome {
    static constexpr double none = std::numeric_limits<double>::quiet_NaN();
    double sent_alone_gbits = none;  // what the peer received from this rank, one direction at a time
    double received_alone_gbits = none;
    double sent_duplex_gbits = none;  // the same while both directions ran
    double received_duplex_gbits = none;
    double rtt_p50_us = none;
    double rtt_p99_us = none;
    std::vector<std::string> problems;  // wrong bytes, lost bytes, failed connections
};

// Collective over job.comm (every rank, paired or not).
PairOutcome measure_pair(const PairJob& job, const TcpListener& listener, const PairSettings& settings);

// Every pair's figures of this rank, and its rows of the link matrix (it received them).
struct LinkFigures {
    std::vector<double> send_alone, receive_alone, duplex, rtt_p50_us, rtt_p99_us;
    std::vector<std::vector<double>> rows;
    bool intra_node = false;
    void add(const PairOutcome& outcome);
};

// Every rank's rows (all of one width), on rank 0 of `comm`; nothing elsewhere. Collective.
std::vector<std::vector<double>> gather_rows(MPI_Comm comm, const std::vector<std::vector<double>>& mine);

}  // namespace shakedown::health
