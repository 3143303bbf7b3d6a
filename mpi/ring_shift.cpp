#include "mpi/ring_shift.hpp"

#include "core/planted_delay.hpp"
#include "comm/payload.hpp"
#include "mpi/pingpong.hpp"
#include "stats/summary.hpp"

#include <fmt/format.h>

#include <vector>

namespace shakedown::mpi {
namespace {

constexpr int ping_tag = 0x7170;
constexpr int pong_tag = 0x7171;
constexpr int stream_tag = 0x7172;

struct Neighbours {
    int me = 0;
    int send_to = 0;
    int receive_from = 0;
};

class MismatchNote {
public:
    MismatchNote(const Neighbours& n, bool corrupt) : n_(n), corrupt_pending_(corrupt) {}

    // Applies the planted corruption to the first payload this rank receives, then checks it.
    void check(std::span<std::byte> received, std::uint64_t seed, int from, std::string_view what, int iteration) {
        if (corrupt_pending_) {
            comm::flip_one_byte(received);
            corrupt_pending_ = false;
        }
        if (first_) return;
        if (const auto index = comm::first_mismatch(received, seed))
            first_ = fmt::format("payload mismatch on the link {} -> {} ({} {} B, iteration {}, byte {})", from, n_.me,
                                 what, received.size(), iteration, *index);
    }
    std::optional<std::string> take() { return std::move(first_); }

private:
    Neighbours n_;
    bool corrupt_pending_;
    std::optional<std::string> first_;
};

double measure_latency(MPI_Comm comm, const Neighbours& n, const ShiftSpec& spec, MismatchNote& note) {
    const auto bytes = spec.latency_bytes;
    const int count = static_cast<int>(bytes);
    std::vector<std::byte> ping_out(bytes), ping_in(bytes), pong_in(bytes);
    std::vector<double> half_round_trips_us;
    for (int step = 0; step < spec.latency_warmup + spec.latency_iterations; ++step) {
        const auto seed = comm::payload_seed(static_cast<std::uint64_t>(step), bytes);
        comm::fill_payload(ping_out, seed);
        MPI_Request incoming[2];
        MPI_Request outgoing[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
        MPI_Barrier(comm);  // every iteration starts together: no lag carried around the ring
        MPI_Irecv(ping_in.data(), count, MPI_BYTE, n.receive_from, ping_tag, comm, &incoming[0]);
        MPI_Irecv(pong_in.data(), count, MPI_BYTE, n.send_to, pong_tag, comm, &incoming[1]);
        const double start = MPI_Wtime();
        planted_delay(spec.delay_s);
        MPI_Isend(ping_out.data(), count, MPI_BYTE, n.send_to, ping_tag, comm, &outgoing[0]);
        double elapsed = 0.0;
        for (int done = 0; done < 2; ++done) {
            int which = MPI_UNDEFINED;
            MPI_Waitany(2, incoming, &which, MPI_STATUS_IGNORE);
            if (which == 0) {  // answer the ping at once
                planted_delay(spec.delay_s);
                MPI_Isend(ping_in.data(), count, MPI_BYTE, n.receive_from, pong_tag, comm, &outgoing[1]);
            } else {
                elapsed = MPI_Wtime() - start;
            }
        }
        MPI_Waitall(2, outgoing, MPI_STATUSES_IGNORE);
        const int iteration = step - spec.latency_warmup;
        note.check(ping_in, seed, n.receive_from, "ping", iteration);
        note.check(pong_in, seed, n.send_to, "pong", iteration);
        if (iteration >= 0) half_round_trips_us.push_back(elapsed / 2.0 * 1e6);
    }
    return stats::summarize(half_round_trips_us).median;
}

double measure_bandwidth(MPI_Comm comm, const Neighbours& n, const ShiftSpec& spec, MismatchNote& note) {
    const auto bytes = spec.bandwidth_bytes;
    const int count = static_cast<int>(bytes);
    const auto window = static_cast<std::size_t>(spec.bandwidth_window);
    const auto seed = comm::payload_seed(0, bytes);
    std::vector<std::byte> outgoing(bytes);
    comm::fill_payload(outgoing, seed);
    std::vector<std::byte> slots(bytes * window);
    std::vector<MPI_Request> receives(window), sends(window);
    std::vector<double> rates_gbs;
    for (int step = 0; step < spec.bandwidth_warmup + spec.bandwidth_iterations; ++step) {
        MPI_Barrier(comm);
        for (std::size_t w = 0; w < window; ++w)
            MPI_Irecv(slots.data() + w * bytes, count, MPI_BYTE, n.receive_from, stream_tag, comm, &receives[w]);
        // The clock starts before the planted sleep: a slow rank's incoming links look slow
        // too, as they would when the node itself is the problem.
        const double start = MPI_Wtime();
        planted_delay(spec.delay_s);
        for (std::size_t w = 0; w < window; ++w)
            MPI_Isend(outgoing.data(), count, MPI_BYTE, n.send_to, stream_tag, comm, &sends[w]);
        MPI_Waitall(static_cast<int>(window), receives.data(), MPI_STATUSES_IGNORE);
        const double elapsed = MPI_Wtime() - start;
        MPI_Waitall(static_cast<int>(window), sends.data(), MPI_STATUSES_IGNORE);
        const int iteration = step - spec.bandwidth_warmup;
        for (std::size_t w = 0; w < window; ++w)
            note.check(std::span(slots.data() + w * bytes, bytes), seed, n.receive_from, "stream", iteration);
        if (iteration >= 0) rates_gbs.push_back(static_cast<double>(bytes * window) / elapsed / 1e9);
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
