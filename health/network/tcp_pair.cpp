#include "health/network/tcp_pair.hpp"

#include "health/network/tcp_streams.hpp"
#include "stats/summary.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <numeric>
#include <thread>

namespace shakedown::health {
namespace {

constexpr int exchange_tag = 7301;

// "node2 -> node1 on eth0 (alone)": the direction a problem was seen in.
std::string direction(const PairJob& job, bool received, const char* phase) {
    return received ? fmt::format("{} -> {} on {} ({})", job.peer_name, job.me_name, job.interface, phase)
                    : fmt::format("{} -> {} on {} ({})", job.me_name, job.peer_name, job.interface, phase);
}

// What the receiving side found wrong in one phase, and whether the sender's count arrived whole.
void check_received(const PairJob& job, const StreamReceiveOutcome& received, double sent_bytes, const char* phase,
                    std::vector<std::string>& problems) {
    for (const std::string& mismatch : received.mismatches)
        problems.push_back(fmt::format("{}: {}", direction(job, true, phase), mismatch));
    for (const std::string& error : received.errors)
        problems.push_back(fmt::format("{}: {}", direction(job, true, phase), error));
    const auto arrived = static_cast<double>(total_bytes(received.bytes));
    if (std::isfinite(sent_bytes) && sent_bytes != arrived)
        problems.push_back(fmt::format("{}: {:.0f} bytes arrived of the {:.0f} sent", direction(job, true, phase), arrived,
                                       sent_bytes));
}

void check_sent(const PairJob& job, const StreamSendOutcome& sent, const char* phase, std::vector<std::string>& problems) {
    for (const std::string& error : sent.errors)
        problems.push_back(fmt::format("{}: {}", direction(job, false, phase), error));
}

}  // namespace

PairOutcome measure_pair(const PairJob& job, const TcpListener& listener, const PairSettings& settings) {
    PairOutcome outcome;
    const bool paired = job.peer >= 0;
    const auto wait = std::chrono::milliseconds(static_cast<long long>((settings.seconds + 30.0) * 1000.0));
    const auto send_plan = [&](std::uint32_t phase) {
        return StreamSend{job.peer_endpoint.ipv4,
                          job.peer_endpoint.port,
                          settings.streams,
                          settings.seconds,
                          phase,
                          job.me,
                          settings.corrupt,
                          settings.delay_s,
                          wait};
    };
    const auto receive_plan = [&](std::uint32_t phase) { return StreamReceive{settings.streams, phase, job.peer, wait}; };
    const std::uint32_t alone_out = job.first_phase + (job.initiator ? 0 : 1);
    const std::uint32_t alone_in = job.first_phase + (job.initiator ? 1 : 0);
    const std::uint32_t both = job.first_phase + 2, echo = job.first_phase + 3;

    StreamSendOutcome sent_alone, sent_duplex;
    StreamReceiveOutcome received_alone, received_duplex;
    // One direction at a time: the initiator's first.
    for (const std::uint32_t phase : {job.first_phase, job.first_phase + 1}) {
        MPI_Barrier(job.comm);
        if (!paired) continue;
        if (phase == alone_out) sent_alone = send_streams(send_plan(phase));
        else received_alone = receive_streams(listener, receive_plan(alone_in));
    }
    MPI_Barrier(job.comm);
    if (paired) {
        std::jthread receiving([&] { received_duplex = receive_streams(listener, receive_plan(both)); });
        sent_duplex = send_streams(send_plan(both));
    }
    MPI_Barrier(job.comm);
    std::vector<double> round_trips;
    if (paired) {
        if (job.initiator) {
            RoundTrips trips =
                measure_round_trips(job.peer_endpoint.ipv4, job.peer_endpoint.port, echo, settings.round_trips, wait);
            if (!trips.error.empty())
                outcome.problems.push_back(fmt::format("{} round trips: {}", direction(job, false, "echo"), trips.error));
            round_trips = std::move(trips.microseconds);
        } else if (std::string error = serve_round_trips(listener, echo, wait); !error.empty()) {
            outcome.problems.push_back(fmt::format("{} round trips: {}", direction(job, true, "echo"), error));
        }
    }
    if (!paired) return outcome;

    // Each side tells the other what it sent and what it received; the round trip is the initiator's.
    const double p50 = round_trips.empty() ? PairOutcome::none : stats::median(round_trips);
    const double p99 = round_trips.empty() ? PairOutcome::none : stats::percentile(round_trips, 0.99);
    const std::array<double, 6> mine = {static_cast<double>(total_bytes(sent_alone.bytes)),
                                        static_cast<double>(total_bytes(sent_duplex.bytes)),
                                        received_alone.gbits(),
                                        received_duplex.gbits(),
                                        p50,
                                        p99};
    std::array<double, 6> theirs{};
    MPI_Sendrecv(mine.data(), 6, MPI_DOUBLE, job.peer, exchange_tag, theirs.data(), 6, MPI_DOUBLE, job.peer, exchange_tag,
                 job.comm, MPI_STATUS_IGNORE);
    outcome.received_alone_gbits = mine[2];
    outcome.received_duplex_gbits = mine[3];
    outcome.sent_alone_gbits = theirs[2];
    outcome.sent_duplex_gbits = theirs[3];
    outcome.rtt_p50_us = job.initiator ? p50 : theirs[4];
    outcome.rtt_p99_us = job.initiator ? p99 : theirs[5];
    check_sent(job, sent_alone, "alone", outcome.problems);
    check_sent(job, sent_duplex, "both ways", outcome.problems);
    check_received(job, received_alone, theirs[0], "alone", outcome.problems);
    check_received(job, received_duplex, theirs[1], "both ways", outcome.problems);
    return outcome;
}

void LinkFigures::add(const PairOutcome& outcome) {
    send_alone.push_back(outcome.sent_alone_gbits);
    receive_alone.push_back(outcome.received_alone_gbits);
    duplex.push_back(std::min(outcome.sent_duplex_gbits, outcome.received_duplex_gbits));
    if (std::isfinite(outcome.rtt_p50_us)) rtt_p50_us.push_back(outcome.rtt_p50_us);
    if (std::isfinite(outcome.rtt_p99_us)) rtt_p99_us.push_back(outcome.rtt_p99_us);
}

std::vector<std::vector<double>> gather_rows(MPI_Comm comm, const std::vector<std::vector<double>>& mine) {
    int me = 0, size = 1;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &size);
    int width = mine.empty() ? 0 : static_cast<int>(mine.front().size());
    MPI_Allreduce(MPI_IN_PLACE, &width, 1, MPI_INT, MPI_MAX, comm);
    std::vector<double> flat;
    for (const auto& row : mine) flat.insert(flat.end(), row.begin(), row.end());
    const int count = static_cast<int>(flat.size());
    std::vector<int> counts(static_cast<std::size_t>(size)), offsets(static_cast<std::size_t>(size));
    MPI_Gather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, comm);
    std::vector<double> all;
    if (me == 0) {
        std::exclusive_scan(counts.begin(), counts.end(), offsets.begin(), 0);
        all.resize(static_cast<std::size_t>(offsets.back() + counts.back()));
    }
    MPI_Gatherv(flat.data(), count, MPI_DOUBLE, all.data(), counts.data(), offsets.data(), MPI_DOUBLE, 0, comm);
    std::vector<std::vector<double>> rows;
    if (me != 0 || width == 0) return rows;
    for (std::size_t at = 0; at + static_cast<std::size_t>(width) <= all.size(); at += static_cast<std::size_t>(width))
        rows.emplace_back(all.begin() + static_cast<std::ptrdiff_t>(at),
                          all.begin() + static_cast<std::ptrdiff_t>(at + width));
    return rows;
}

}  // namespace shakedown::health
