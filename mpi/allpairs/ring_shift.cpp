#include "mpi/allpairs/ring_shift.hpp"

#include "comm/payload.hpp"
#include "core/planted_delay.hpp"
#include "mpi/pairs/pingpong.hpp"
#include "stats/summary.hpp"

#include <fmt/format.h>

#include <vector>

namespace shakedown::mpi {
namespace {

constexpr int ring_ping_tag = 0x7170;
constexpr int ring_pong_tag = 0x7171;
constexpr int ring_stream_tag = 0x7172;
constexpr int ring_ack_tag = 0x7173;
constexpr int ring_check_tag = 0x7174;

struct Neighbours {
    int me = 0;
    int send_to = 0;
    int receive_from = 0;
};

class MismatchNote {
public:
    MismatchNote(const Neighbours& n, bool corrupt) : n_(n), corrupt_pending_(corrupt) {}

    // Applies the planted corruption to the first payload this rank receives, then checks it.
    void check(std::span<std::byte> received, std::uint64_t seed, int from, std::string_view what,
               std::string_view message) {
        if (corrupt_pending_) {
            comm::flip_one_byte(received);
            corrupt_pending_ = false;
        }
        if (first_) return;
        if (const auto index = comm::first_mismatch(received, seed))
            first_ = fmt::format("payload mismatch on the link {} -> {} ({} {} B, {}, byte {})", from, n_.me, what,
                                 received.size(), message, *index);
    }
    std::optional<std::string> take() { return std::move(first_); }

private:
    Neighbours n_;
    bool corrupt_pending_;
    std::optional<std::string> first_;
};

// Latency toward send_to, as OSU times a ping-pong: one payload written before the loop and the
// buffers untouched inside it; validated afterwards in an untimed exchange of the same size.
double measure_latency(MPI_Comm comm, const Neighbours& n, const ShiftSpec& spec, MismatchNote& note) {
    const auto bytes = spec.latency_bytes;
    const int count = static_cast<int>(bytes);
    std::vector<std::byte> ping_out(bytes), ping_in(bytes), pong_in(bytes);
    const auto timed_seed = comm::payload_seed(0, bytes);
    comm::fill_payload(ping_out, timed_seed);
    std::vector<double> half_round_trips_us;
    const auto exchange = [&](bool timed) {
        MPI_Request incoming[2];
        MPI_Request outgoing[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
        MPI_Barrier(comm);  // every iteration starts together: no lag carried around the ring
        MPI_Irecv(ping_in.data(), count, MPI_BYTE, n.receive_from, ring_ping_tag, comm, &incoming[0]);
        MPI_Irecv(pong_in.data(), count, MPI_BYTE, n.send_to, ring_pong_tag, comm, &incoming[1]);
        const double start = MPI_Wtime();
        if (timed) planted_delay(spec.delay_s);
        MPI_Isend(ping_out.data(), count, MPI_BYTE, n.send_to, ring_ping_tag, comm, &outgoing[0]);
        double elapsed = 0.0;
        for (int done = 0; done < 2; ++done) {
            int which = MPI_UNDEFINED;
            MPI_Waitany(2, incoming, &which, MPI_STATUS_IGNORE);
            if (which == 0) {  // answer the ping at once
                if (timed) planted_delay(spec.delay_s);
                MPI_Isend(ping_in.data(), count, MPI_BYTE, n.receive_from, ring_pong_tag, comm, &outgoing[1]);
            } else {
                elapsed = MPI_Wtime() - start;
            }
        }
        MPI_Waitall(2, outgoing, MPI_STATUSES_IGNORE);
        return elapsed;
    };
    for (int step = 0; step < spec.latency_warmup + spec.latency_iterations; ++step) {
        const double elapsed = exchange(true);
        if (step >= spec.latency_warmup) half_round_trips_us.push_back(elapsed / 2.0 * 1e6);
    }
    // Validation, untimed: the timed payload's last ping and pong, then one exchange of a fresh one.
    note.check(ping_in, timed_seed, n.receive_from, "ping", "last timed message");
    note.check(pong_in, timed_seed, n.send_to, "pong", "last timed message");
    const auto check_seed = comm::payload_seed(1, bytes);
    comm::fill_payload(ping_out, check_seed);
    exchange(false);
    note.check(ping_in, check_seed, n.receive_from, "ping", "validation message");
    note.check(pong_in, check_seed, n.send_to, "pong", "validation message");
    return stats::summarize(half_round_trips_us).median;
}

// Bandwidth toward send_to, timed by the sender as OSU times it: from before its first send of
// the window until the receiver's acknowledgement that the whole window arrived, so data that
// landed while the receiver was descheduled is inside the time. One receive buffer for the
// window (separate slots measured main memory, not the link).
double measure_bandwidth(MPI_Comm comm, const Neighbours& n, const ShiftSpec& spec, MismatchNote& note) {
    const auto bytes = spec.bandwidth_bytes;
    const int count = static_cast<int>(bytes);
    const auto window = static_cast<std::size_t>(spec.bandwidth_window);
    const auto seed = comm::payload_seed(0, bytes);
    std::vector<std::byte> outgoing(bytes), incoming(bytes);
    comm::fill_payload(outgoing, seed);
    // The window's receives, then the ack for this rank's own outgoing window: waited on together
    // so the ack's arrival is timed as it happens, not after this rank's incoming data.
    std::vector<MPI_Request> waits(window + 1), sends(window);
    std::vector<double> rates_gbs;
    char ack_out = 0, ack_in = 0;
    for (int step = 0; step < spec.bandwidth_warmup + spec.bandwidth_iterations; ++step) {
        MPI_Barrier(comm);
        for (std::size_t w = 0; w < window; ++w)
            MPI_Irecv(incoming.data(), count, MPI_BYTE, n.receive_from, ring_stream_tag, comm, &waits[w]);
        MPI_Irecv(&ack_in, 1, MPI_CHAR, n.send_to, ring_ack_tag, comm, &waits[window]);
        // The clock starts before the planted sleep: a slow rank's incoming links look slow
        // too (its ack comes late), as they would when the node itself is the problem.
        const double start = MPI_Wtime();
        planted_delay(spec.delay_s);
        for (std::size_t w = 0; w < window; ++w)
            MPI_Isend(outgoing.data(), count, MPI_BYTE, n.send_to, ring_stream_tag, comm, &sends[w]);
        double elapsed = 0.0;
        std::size_t receives_left = window;
        MPI_Request ack_sent = MPI_REQUEST_NULL;
        for (std::size_t done = 0; done <= window; ++done) {
            int which = MPI_UNDEFINED;
            MPI_Waitany(static_cast<int>(window + 1), waits.data(), &which, MPI_STATUS_IGNORE);
            if (static_cast<std::size_t>(which) == window) elapsed = MPI_Wtime() - start;  // send_to has the whole window
            else if (--receives_left == 0) MPI_Isend(&ack_out, 1, MPI_CHAR, n.receive_from, ring_ack_tag, comm, &ack_sent);
        }
        MPI_Wait(&ack_sent, MPI_STATUS_IGNORE);
        MPI_Waitall(static_cast<int>(window), sends.data(), MPI_STATUSES_IGNORE);
        if (step >= spec.bandwidth_warmup) rates_gbs.push_back(static_cast<double>(bytes * window) / elapsed / 1e9);
    }
    // Validation, untimed: the timed payload's last arrival, then one window of messages, each its
    // own payload, into the same buffer one at a time and checked as it lands.
    note.check(incoming, seed, n.receive_from, "stream", "last timed message");
    for (std::size_t w = 0; w < window; ++w) {
        const auto message_seed = comm::payload_seed(w + 1, bytes);
        comm::fill_payload(outgoing, message_seed);
        MPI_Sendrecv(outgoing.data(), count, MPI_BYTE, n.send_to, ring_check_tag, incoming.data(), count, MPI_BYTE,
                     n.receive_from, ring_check_tag, comm, MPI_STATUS_IGNORE);
        note.check(incoming, message_seed, n.receive_from, "stream", fmt::format("validation message {}", w + 1));
    }
    return stats::summarize(rates_gbs).median;
}

}  // namespace

ShiftRound measure_shift(MPI_Comm comm, int shift, const ShiftSpec& spec) {
    int me = 0, size = 1;
    MPI_Comm_rank(comm, &me);
    MPI_Comm_size(comm, &size);
    const Neighbours n{me, (me + shift) % size, (me - shift + size) % size};
    MismatchNote note(n, spec.corrupt);
    ShiftRound round;
    round.send_to = n.send_to;
    round.receive_from = n.receive_from;
    round.latency_us = measure_latency(comm, n, spec, note);
    round.bandwidth_gbs = measure_bandwidth(comm, n, spec, note);
    round.mismatch = note.take();
    return round;
}

}  // namespace shakedown::mpi
