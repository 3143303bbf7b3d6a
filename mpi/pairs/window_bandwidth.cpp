#include "mpi/pairs/window_bandwidth.hpp"

#include "comm/payload.hpp"
#include "core/planted_delay.hpp"

#include <algorithm>
#include <vector>

namespace shakedown::mpi {
namespace {

constexpr int window_data_tag = 0x6260;
constexpr int window_ack_tag = 0x6261;
constexpr int window_result_tag = 0x6262;
constexpr int window_check_tag = 0x6263;

// Checks the receive buffer against `seed`, after the planted corruption if one is pending.
std::optional<std::size_t> mismatch_in(std::vector<std::byte>& received, std::uint64_t seed, bool& corrupt_pending) {
    if (corrupt_pending) {
        comm::flip_one_byte(received);
        corrupt_pending = false;
    }
    return comm::first_mismatch(received, seed);
}

}  // namespace

WindowOutcome window_bandwidth(MPI_Comm comm, int peer, bool initiator, const WindowSpec& spec) {
    int me = 0;
    MPI_Comm_rank(comm, &me);
    const int count = static_cast<int>(spec.bytes);
    const auto seed = comm::payload_seed(0, spec.bytes);
    const bool sends = initiator || spec.bidirectional;
    const bool receives = !initiator || spec.bidirectional;

    std::vector<std::byte> send_buffer(sends ? spec.bytes : 0);
    comm::fill_payload(send_buffer, seed);
    std::vector<std::byte> receive_buffer(receives ? spec.bytes : 0);  // every message of a window lands here
    std::vector<MPI_Request> requests(static_cast<std::size_t>(2 * spec.window));
    char ack = 0;

    double start = 0.0;
    for (int step = 0; step < spec.plan.warmup + spec.plan.iterations; ++step) {
        if (step == spec.plan.warmup) start = MPI_Wtime();
        int posted = 0;
        if (receives)
            for (int w = 0; w < spec.window; ++w)
                MPI_Irecv(receive_buffer.data(), count, MPI_BYTE, peer, window_data_tag, comm, &requests[posted++]);
        if (sends) {
            planted_delay(spec.delay_s);
            for (int w = 0; w < spec.window; ++w)
                MPI_Isend(send_buffer.data(), count, MPI_BYTE, peer, window_data_tag, comm, &requests[posted++]);
        }
        MPI_Waitall(posted, requests.data(), MPI_STATUSES_IGNORE);
        // The window is complete when the other side says so.
        if (spec.bidirectional) {
            char reply = 0;
            MPI_Sendrecv(&ack, 1, MPI_CHAR, peer, window_ack_tag, &reply, 1, MPI_CHAR, peer, window_ack_tag, comm,
                         MPI_STATUS_IGNORE);
        } else if (initiator) {
            MPI_Recv(&ack, 1, MPI_CHAR, peer, window_ack_tag, comm, MPI_STATUS_IGNORE);
        } else {
            MPI_Send(&ack, 1, MPI_CHAR, peer, window_ack_tag, comm);
        }
    }
    const double seconds = MPI_Wtime() - start;

    // Validation, untimed: the timed payload's last arrival, then one window of messages, each
    // its own payload, one at a time into the same buffer and checked as it lands.
    std::optional<PayloadMismatch> mine;
    bool corrupt_pending = spec.corrupt;
    if (receives)
        if (const auto index = mismatch_in(receive_buffer, seed, corrupt_pending))
            mine = PayloadMismatch{me, spec.bytes, PayloadMismatch::last_timed_message, *index};
    for (int w = 0; w < spec.window; ++w) {
        const auto message_seed = comm::payload_seed(static_cast<std::uint64_t>(w) + 1, spec.bytes);
        if (sends) comm::fill_payload(send_buffer, message_seed);
        if (sends && receives)
            MPI_Sendrecv(send_buffer.data(), count, MPI_BYTE, peer, window_check_tag, receive_buffer.data(), count, MPI_BYTE,
                         peer, window_check_tag, comm, MPI_STATUS_IGNORE);
        else if (sends) MPI_Send(send_buffer.data(), count, MPI_BYTE, peer, window_check_tag, comm);
        else MPI_Recv(receive_buffer.data(), count, MPI_BYTE, peer, window_check_tag, comm, MPI_STATUS_IGNORE);
        if (receives && !mine)
            if (const auto index = mismatch_in(receive_buffer, message_seed, corrupt_pending))
                mine = PayloadMismatch{me, spec.bytes, w, *index};
    }

    WindowOutcome outcome;
    // Both ranks keep the initiator's clock and the first mismatch either saw.
    double figures[5] = {seconds, mine ? 1.0 : 0.0, static_cast<double>(me), mine ? static_cast<double>(mine->index) : 0.0,
                         mine ? static_cast<double>(mine->message) : 0.0};
    double peer_figures[5] = {};
    MPI_Sendrecv(figures, 5, MPI_DOUBLE, peer, window_result_tag, peer_figures, 5, MPI_DOUBLE, peer, window_result_tag, comm,
                 MPI_STATUS_IGNORE);
    outcome.seconds = initiator ? seconds : peer_figures[0];
    if (mine) outcome.mismatch = mine;
    else if (peer_figures[1] != 0.0)
        outcome.mismatch = PayloadMismatch{static_cast<int>(peer_figures[2]), spec.bytes, static_cast<int>(peer_figures[4]),
                                           static_cast<std::size_t>(peer_figures[3])};

    const double messages = static_cast<double>(spec.window) * spec.plan.iterations;
    const double directions = spec.bidirectional ? 2.0 : 1.0;
    if (outcome.seconds > 0.0) {
        outcome.gigabytes_per_s = directions * messages * static_cast<double>(spec.bytes) / outcome.seconds / 1e9;
        outcome.messages_per_s = messages / outcome.seconds;
    }
    return outcome;
}

}  // namespace shakedown::mpi
