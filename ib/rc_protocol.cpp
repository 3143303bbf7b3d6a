#include "ib/rc_protocol.hpp"

#include "core/clock.hpp"
#include "ib/mismatch_notes.hpp"
#include "comm/payload.hpp"
#include "core/planted_delay.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>

namespace shakedown::ib {

std::string_view to_string(Operation operation) {
    switch (operation) {
        case Operation::write: return "write";
        case Operation::read: return "read";
        case Operation::send: return "send";
    }
    return "?";
}

std::size_t sweep_buffer_bytes(const SweepPlan& plan) {
    const std::size_t largest = plan.sizes.empty() ? 2 : *std::max_element(plan.sizes.begin(), plan.sizes.end());
    return 4 * largest;
}

namespace {

// Buffer slots: the peer writes or sends into receive slots 0 and 1 (alternating, so one can
// be checked while the next message lands in the other); sends and reads come from slots 2, 3.
constexpr int receive_slot_0 = 0;
constexpr int send_slot_0 = 2;

enum class Phase : std::uint64_t { latency_ping, latency_pong, read_source, stream };

// A pattern per (operation, phase, iteration, size): a message left over from another
// iteration, size or operation never validates.
std::uint64_t seed_for(Operation operation, Phase phase, int iteration, std::size_t bytes) {
    const auto tag = static_cast<std::uint64_t>(operation) * 4 + static_cast<std::uint64_t>(phase);
    return comm::payload_seed(static_cast<std::uint64_t>(iteration) * 16 + tag, bytes);
}

unsigned char& last_byte(std::byte* message, std::size_t bytes) {
    return reinterpret_cast<unsigned char&>(message[bytes - 1]);
}

class Side {
public:
    Side(RcEndpoint& endpoint, PeerChannel& channel, bool initiator, const SweepPlan& plan, PlantedFaults faults)
        : ep_(endpoint), channel_(channel), initiator_(initiator), plan_(plan), faults_(faults),
          slot_bytes_(sweep_buffer_bytes(plan) / 4) {}

    SweepOutcome run() {
        SweepOutcome outcome;
        for (const auto operation : plan_.operations)
            for (const auto bytes : plan_.sizes) {
                SizeFigures figures{operation, bytes, {}, 0.0, 0.0, 0.0};
                if (plan_.latency_iterations > 0) {
                    mismatch_noted_ = false;
                    figures.latency_us = operation == Operation::read ? read_latency(bytes) : pingpong_latency(operation, bytes);
                }
                mismatch_noted_ = false;
                const auto uni = stream(operation, bytes, false);
                figures.bandwidth_gbps = uni.mine_gbps;
                figures.message_rate_mps = uni.mine_messages_per_s / 1e6;
                if (plan_.bidirectional) {
                    mismatch_noted_ = false;
                    const auto both = stream(operation, bytes, true);
                    figures.bibandwidth_gbps = both.mine_gbps + both.peer_gbps;
                }
                // The initiator measured latency and one-way figures: both sides keep its numbers.
                const SizeFigures initiators = channel_.swap(figures);
                outcome.figures.push_back(initiator_ ? figures : initiators);
            }
        outcome.mismatches = merge_with_peer(channel_, mismatches_);
        return outcome;
    }

private:
    std::byte* slot(int index) const { return ep_.host_bytes() + static_cast<std::size_t>(index) * slot_bytes_; }
    std::size_t slot_offset(int index) const { return static_cast<std::size_t>(index) * slot_bytes_; }
    std::uint64_t remote_slot(int index) const { return ep_.peer().buffer_address + slot_offset(index); }

    void post(WorkKind kind, int local_slot, std::size_t bytes, int remote, std::uint64_t id) {
        WorkRequest request;
        request.kind = kind;
        request.id = id;
        request.local = &ep_.region();
        request.local_offset = slot_offset(local_slot);
        request.length = bytes;
        request.remote_address = remote_slot(remote);
        request.rkey = ep_.peer().rkey;
        ep_.qp().post(request);
    }

    // The payload this side provides; the planted fault flips its first byte once per
    // operation and size (the first timed message), which the receiver must catch.
    void provide(int index, std::size_t bytes, std::uint64_t seed, bool first_timed) {
        comm::fill_payload({slot(index), bytes}, seed);
        if (faults_.corrupt && first_timed) slot(index)[0] = ~slot(index)[0];
    }

    // Makes the last byte differ from what message `seed` will bring, so its arrival shows.
    void arm(int index, std::size_t bytes, std::uint64_t seed) {
        const auto expected = static_cast<unsigned char>(comm::expected_byte(seed, bytes - 1));
        std::atomic_ref<unsigned char>(last_byte(slot(index), bytes)).store(~expected, std::memory_order_relaxed);
    }

    void wait_for_arrival(int index, std::size_t bytes, std::uint64_t seed, std::string_view what) {
        const auto expected = static_cast<unsigned char>(comm::expected_byte(seed, bytes - 1));
        const std::atomic_ref<unsigned char> flag(last_byte(slot(index), bytes));
        const Stopwatch clock;
        for (std::size_t spins = 1; flag.load(std::memory_order_acquire) != expected; ++spins)
            if (spins % 4096 == 0 && clock.seconds() > plan_.timeout_s)
                throw VerbsError(fmt::format("the peer's {} did not arrive within {} s", what, plan_.timeout_s));
    }

    // `message`: the timed iteration (negative in the warm-up), or the receive slot of a stream.
    void check(int index, std::size_t bytes, std::uint64_t seed, std::string_view what, int message) {
        const auto bad = comm::first_mismatch({slot(index), bytes}, seed);
        if (!bad || mismatch_noted_) return;
        mismatch_noted_ = true;  // one note per operation, size and phase
        mismatches_.push_back(fmt::format("payload mismatch in {} {} B, message {}: byte {} is 0x{:02x}, expected 0x{:02x}",
                                          what, bytes, message, *bad, static_cast<unsigned>(slot(index)[*bad]),
                                          static_cast<unsigned>(comm::expected_byte(seed, *bad))));
    }

    // Write or send ping-pong: the initiator times post -> the echo's arrival; one-way latency
    // is half of it. Receive slots alternate so a message is checked while the next lands.
    stats::Summary pingpong_latency(Operation operation, std::size_t bytes) {
        const int warmup = plan_.latency_warmup;
        const int total = warmup + plan_.latency_iterations;
        const auto incoming = [&](int j) { return seed_for(operation, initiator_ ? Phase::latency_pong : Phase::latency_ping, j, bytes); };
        const auto outgoing = [&](int j) { return seed_for(operation, initiator_ ? Phase::latency_ping : Phase::latency_pong, j, bytes); };
        const bool by_send = operation == Operation::send;
        const auto what = fmt::format("{} latency", to_string(operation));
        const WorkKind kind = by_send ? WorkKind::send : WorkKind::rdma_write;

        for (int j = 0; j < std::min(total, 2); ++j) {
            if (by_send)
                post(WorkKind::receive, receive_slot_0 + j, bytes, 0, static_cast<std::uint64_t>(j));
            else
                arm(receive_slot_0 + j, bytes, incoming(j));
        }
        provide(send_slot_0, bytes, outgoing(0), warmup == 0);
        channel_.barrier();

        std::vector<double> micros;
        micros.reserve(static_cast<std::size_t>(plan_.latency_iterations));
        for (int j = 0; j < total; ++j) {
            const int parity = j % 2;
            const auto arrive = [&] {
                if (by_send)
                    ep_.wait(ep_.receive_cq(), plan_.timeout_s, what);
                else
                    wait_for_arrival(receive_slot_0 + parity, bytes, incoming(j), what);
            };
            if (initiator_) {
                planted_delay(faults_.delay_s);
                const Stopwatch round_trip;
                post(kind, send_slot_0 + parity, bytes, receive_slot_0 + parity, static_cast<std::uint64_t>(j));
                arrive();
                const double seconds = round_trip.seconds();
                ep_.wait(ep_.send_cq(), plan_.timeout_s, what);
                if (j >= warmup) micros.push_back(seconds / 2 * 1e6);
            } else {
                arrive();
                planted_delay(faults_.delay_s);
                post(kind, send_slot_0 + parity, bytes, receive_slot_0 + parity, static_cast<std::uint64_t>(j));
                ep_.wait(ep_.send_cq(), plan_.timeout_s, what);
            }
            check(receive_slot_0 + parity, bytes, incoming(j), what, j - warmup);
            if (j + 2 < total) {
                if (by_send)
                    post(WorkKind::receive, receive_slot_0 + parity, bytes, 0, static_cast<std::uint64_t>(j + 2));
                else
                    arm(receive_slot_0 + parity, bytes, incoming(j + 2));
            }
            if (j + 1 < total) provide(send_slot_0 + (j + 1) % 2, bytes, outgoing(j + 1), j + 1 == warmup);
        }
        channel_.barrier();
        return stats::summarize(micros);
    }

    // RDMA read round trip: the initiator reads the responder's slot and waits for the
    // completion; the responder only provides the data.
    stats::Summary read_latency(std::size_t bytes) {
        const auto seed = seed_for(Operation::read, Phase::read_source, 0, bytes);
        if (!initiator_) provide(send_slot_0, bytes, seed, true);
        channel_.barrier();
        std::vector<double> micros;
        if (initiator_) {
            const int total = plan_.latency_warmup + plan_.latency_iterations;
            for (int j = 0; j < total; ++j) {
                arm(receive_slot_0, bytes, seed);  // an unanswered read shows as a mismatch
                slot(receive_slot_0)[0] = ~comm::expected_byte(seed, 0);
                const Stopwatch round_trip;
                post(WorkKind::rdma_read, receive_slot_0, bytes, send_slot_0, static_cast<std::uint64_t>(j));
                ep_.wait(ep_.send_cq(), plan_.timeout_s, "read latency");
                const double seconds = round_trip.seconds();
                if (j >= plan_.latency_warmup) micros.push_back(seconds * 1e6);
                check(receive_slot_0, bytes, seed, "read latency", j - plan_.latency_warmup);
            }
        }
        channel_.barrier();
        return stats::summarize(micros);
    }

    struct StreamRates {
        double mine_gbps = 0.0;
        double peer_gbps = 0.0;
        double mine_messages_per_s = 0.0;
    };

    // Streams messages with up to queue_depth in flight. One way: the initiator posts (for
    // send the responder receives); both ways: each side posts (and receives sends).
    StreamRates stream(Operation operation, std::size_t bytes, bool both_ways) {
        const bool posts = both_ways || initiator_;
        const bool provides = operation == Operation::read ? (both_ways || !initiator_) : posts;
        const bool lands_here = operation == Operation::read ? posts : (both_ways || !initiator_);
        const auto seed = seed_for(operation, Phase::stream, both_ways ? 1 : 0, bytes);
        const auto what = fmt::format("{} {} bandwidth", to_string(operation), both_ways ? "bi-directional" : "one-way");

        if (provides) provide(send_slot_0, bytes, seed, true);
        if (lands_here)
            for (int k = 0; k < 2; ++k) {  // an unfilled slot shows as a mismatch
                arm(receive_slot_0 + k, bytes, seed);
                slot(receive_slot_0 + k)[0] = ~comm::expected_byte(seed, 0);
            }
        if (plan_.bandwidth_warmup > 0) run_stream(operation, bytes, posts, lands_here, plan_.bandwidth_warmup, what);
        const double seconds = run_stream(operation, bytes, posts, lands_here, plan_.bandwidth_iterations, what);

        if (lands_here) {
            check(receive_slot_0, bytes, seed, what, 0);
            if (operation == Operation::send && (plan_.bandwidth_iterations >= 2 || plan_.bandwidth_warmup >= 2))
                check(receive_slot_0 + 1, bytes, seed, what, 1);
        }
        StreamRates rates;
        if (posts && seconds > 0) {
            rates.mine_gbps = static_cast<double>(bytes) * plan_.bandwidth_iterations * 8 / seconds / 1e9;
            rates.mine_messages_per_s = plan_.bandwidth_iterations / seconds;
        }
        rates.peer_gbps = channel_.swap(rates.mine_gbps);
        return rates;
    }

    // One stream of `messages`; returns this side's seconds from the first post to the last
    // completion (0 when it only receives).
    double run_stream(Operation operation, std::size_t bytes, bool posts, bool lands_here, int messages,
                      std::string_view what) {
        const bool receives_sends = operation == Operation::send && lands_here;
        const int depth = plan_.queue_depth;
        int receives_posted = 0;
        if (receives_sends)
            for (; receives_posted < std::min(depth, messages); ++receives_posted)
                post(WorkKind::receive, receive_slot_0 + receives_posted % 2, bytes, 0,
                     static_cast<std::uint64_t>(receives_posted));
        channel_.barrier();

        const WorkKind kind = operation == Operation::write  ? WorkKind::rdma_write
                              : operation == Operation::read ? WorkKind::rdma_read
                                                             : WorkKind::send;
        const int local_slot = operation == Operation::read ? receive_slot_0 : send_slot_0;
        const int remote = operation == Operation::read ? send_slot_0 : receive_slot_0;
        int posted = 0;
        int completed = 0;
        int received = 0;
        const int to_complete = posts ? messages : 0;
        const int to_receive = receives_sends ? messages : 0;
        std::vector<Completion> polled;
        const Stopwatch clock;
        Stopwatch idle;
        while (completed < to_complete || received < to_receive) {
            while (posted < to_complete && posted - completed < depth) {
                post(kind, local_slot, bytes, remote, static_cast<std::uint64_t>(posted));
                ++posted;
            }
            polled.clear();
            bool progress = false;
            if (to_complete > 0 && ep_.send_cq().poll(polled, 32) > 0) progress = true;
            for (const auto& completion : polled) {
                if (!completion.ok) throw VerbsError(fmt::format("{} completed with error: {}", what, completion.error));
                ++completed;
            }
            polled.clear();
            if (to_receive > 0 && ep_.receive_cq().poll(polled, 32) > 0) progress = true;
            for (const auto& completion : polled) {
                if (!completion.ok) throw VerbsError(fmt::format("{} receive completed with error: {}", what, completion.error));
                ++received;
                if (receives_posted < to_receive) {
                    post(WorkKind::receive, receive_slot_0 + receives_posted % 2, bytes, 0,
                         static_cast<std::uint64_t>(receives_posted));
                    ++receives_posted;
                }
            }
            if (progress)
                idle.restart();
            else if (idle.seconds() > plan_.timeout_s)
                throw VerbsError(fmt::format("{}: no completion for {} s ({} of {} sent, {} of {} received)", what,
                                             plan_.timeout_s, completed, to_complete, received, to_receive));
        }
        const double seconds = posts ? clock.seconds() : 0.0;
        channel_.barrier();
        return seconds;
    }

    RcEndpoint& ep_;
    PeerChannel& channel_;
    bool initiator_;
    const SweepPlan& plan_;
    PlantedFaults faults_;
    std::size_t slot_bytes_;
    std::vector<std::string> mismatches_;
    bool mismatch_noted_ = false;
};

}  // namespace

SweepOutcome run_rc_sweep(RcEndpoint& endpoint, PeerChannel& channel, bool initiator, const SweepPlan& plan,
                          PlantedFaults faults) {
    if (endpoint.host_bytes() == nullptr || endpoint.region().length() < sweep_buffer_bytes(plan))
        throw VerbsError(fmt::format("the RC sweep needs a registered host buffer of {} B", sweep_buffer_bytes(plan)));
    for (const auto bytes : plan.sizes)
        if (bytes < 2) throw VerbsError("RC sweep message sizes start at 2 B (arrival is detected on the last byte)");
    return Side(endpoint, channel, initiator, plan, faults).run();
}

}  // namespace shakedown::ib
