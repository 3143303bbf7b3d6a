#include "mpi/pairs/pingpong.hpp"

#include "comm/payload.hpp"
#include "core/planted_delay.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <thread>

namespace shakedown::mpi {
namespace {

constexpr int ping_tag = 0x5150;

void check_arrival(comm::MessageBuffer& buffer, std::uint64_t seed, int me, const PingPongSpec& spec, int message,
                   bool& corrupt_pending, std::optional<PayloadMismatch>& mismatch) {
    if (corrupt_pending) {
        buffer.flip_one_byte();
        corrupt_pending = false;
    }
    if (mismatch) return;  // report the first one only
    if (const auto index = buffer.first_mismatch(seed)) mismatch = PayloadMismatch{me, spec.bytes, message, *index};
}

// Both ranks end with the first mismatch either of them saw (the lower rank's wins a tie).
std::optional<PayloadMismatch> agree_on_mismatch(MPI_Comm comm, int peer, std::optional<PayloadMismatch> mine) {
    long long outgoing[4] = {mine ? 1 : 0, mine ? mine->detected_by : -1, mine ? mine->message : 0,
                             mine ? static_cast<long long>(mine->index) : 0};
    long long incoming[4] = {};
    MPI_Sendrecv(outgoing, 4, MPI_LONG_LONG, peer, ping_tag + 1, incoming, 4, MPI_LONG_LONG, peer, ping_tag + 1, comm,
                 MPI_STATUS_IGNORE);
    if (mine) return mine;
    if (incoming[0] == 0) return std::nullopt;
    return PayloadMismatch{static_cast<int>(incoming[1]), 0, static_cast<int>(incoming[2]),
                           static_cast<std::size_t>(incoming[3])};
}

}  // namespace

std::string PayloadMismatch::describe(int first, int second, int detector) const {
    return fmt::format("payload mismatch between ranks {} and {}: {} B message, {}, byte {}, seen on rank {}", first, second,
                       bytes,
                       message == last_timed_message ? std::string("last timed message")
                                                     : fmt::format("validation message {}", message + 1),
                       index, detector);
}

PingPongOutcome ping_pong(MPI_Comm comm, int peer, bool initiator, const PingPongSpec& spec, comm::MessageBuffer& send,
                          comm::MessageBuffer& receive) {
    int me = 0;
    MPI_Comm_rank(comm, &me);
    const int count = static_cast<int>(spec.bytes);
    const int total = spec.plan.warmup + spec.plan.iterations;
    PingPongOutcome outcome;

    // Timed pass, as OSU's loop: one payload written before it, and nothing reads or writes the
    // buffers between iterations (a fresh payload per message measured the cache, not the link);
    // the clock is read once per batch.
    const int batch = spec.batch > 0 ? spec.batch : std::max(1, spec.plan.iterations / 100);
    // Both sides answer from their own send buffer, as OSU's do: echoing the buffer just received
    // into would time a cache line's trip between cores on top of the link (1.4-2.3x OSU's latency
    // from 4 KiB to 1 MiB on the development VM).
    send.fill(comm::payload_seed(0, spec.bytes));
    const auto exchange = [&] {
        if (initiator) {
            planted_delay(spec.delay_s);
            MPI_Send(send.data(), count, MPI_BYTE, peer, ping_tag, comm);
            MPI_Recv(receive.data(), count, MPI_BYTE, peer, ping_tag, comm, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(receive.data(), count, MPI_BYTE, peer, ping_tag, comm, MPI_STATUS_IGNORE);
            planted_delay(spec.delay_s);
            MPI_Send(send.data(), count, MPI_BYTE, peer, ping_tag, comm);
        }
    };
    for (int step = 0; step < spec.plan.warmup; ++step) exchange();
    for (int done = 0; done < spec.plan.iterations;) {
        const int n = std::min(batch, spec.plan.iterations - done);
        const double start = MPI_Wtime();
        for (int i = 0; i < n; ++i) exchange();
        const double elapsed = MPI_Wtime() - start;
        outcome.half_round_trip_s.push_back(elapsed / (2.0 * n));
        outcome.batch_iterations.push_back(n);
        done += n;
    }

    // Validation pass, untimed: the same buffers, size and number of messages, each with a payload
    // unique to (message, size), checked on both sides: the responder after echoing it, the
    // initiator on the echo.
    std::optional<PayloadMismatch> mismatch;
    bool corrupt_pending = spec.corrupt;
    for (int step = 0; step < total; ++step) {
        const auto seed = comm::payload_seed(static_cast<std::uint64_t>(step) + 1, spec.bytes);
        if (initiator) {
            send.fill(seed);
            MPI_Send(send.data(), count, MPI_BYTE, peer, ping_tag, comm);
            MPI_Recv(receive.data(), count, MPI_BYTE, peer, ping_tag, comm, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(receive.data(), count, MPI_BYTE, peer, ping_tag, comm, MPI_STATUS_IGNORE);
            MPI_Send(receive.data(), count, MPI_BYTE, peer, ping_tag, comm);
        }
        check_arrival(receive, seed, me, spec, step, corrupt_pending, mismatch);
    }

    // The initiator's clock is the measurement; the responder gets the same figures so both
    // ranks' traces carry the pair's latency (both ranks know the batch sizes).
    if (initiator)
        MPI_Send(outcome.half_round_trip_s.data(), static_cast<int>(outcome.half_round_trip_s.size()), MPI_DOUBLE, peer,
                 ping_tag + 2, comm);
    else
        MPI_Recv(outcome.half_round_trip_s.data(), static_cast<int>(outcome.half_round_trip_s.size()), MPI_DOUBLE, peer,
                 ping_tag + 2, comm, MPI_STATUS_IGNORE);
    outcome.mismatch = agree_on_mismatch(comm, peer, mismatch);
    if (outcome.mismatch) outcome.mismatch->bytes = spec.bytes;
    return outcome;
}

PingPongOutcome ping_pong(MPI_Comm comm, int peer, bool initiator, const PingPongSpec& spec) {
    comm::HostBuffer send(spec.bytes);
    comm::HostBuffer receive(spec.bytes);
    return ping_pong(comm, peer, initiator, spec, send, receive);
}

std::vector<double> PingPongOutcome::half_round_trip_us() const {
    std::vector<double> micros;
    micros.reserve(half_round_trip_s.size());
    for (const double seconds : half_round_trip_s) micros.push_back(seconds * 1e6);
    return micros;
}

}  // namespace shakedown::mpi
