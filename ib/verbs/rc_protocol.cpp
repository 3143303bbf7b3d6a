#include "ib/verbs/rc_protocol.hpp"

#include "comm/payload.hpp"
#include "core/clock.hpp"
#include "core/planted_delay.hpp"
#include "ib/pair/mismatch_notes.hpp"
#include "ib/pair/payload_ledger.hpp"
#include "ib/pair/validation_pass.hpp"

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

namespace {

// Buffer slots: the peer writes or sends into receive slot 0 (a send stream alternates slots 0
// and 1 with its posted receives); sends and reads come from slot 2.
constexpr int receive_slot_0 = 0;
constexpr int send_slot_0 = 2;
constexpr int slots = 3;

}  // namespace

std::size_t sweep_buffer_bytes(const SweepPlan& plan) {
    const std::size_t largest = plan.sizes.empty() ? 2 : *std::max_element(plan.sizes.begin(), plan.sizes.end());
    return slots * largest;
}

namespace {

// The message number of the one payload a timed loop moves; validation messages are 0, 1, ...
constexpr int timed_payload = -1;

enum class Phase : std::uint64_t { latency_ping, latency_pong, read_source, stream };

// A pattern per (operation, phase, message, size): a message left over from the timed loop,
// another message, size or operation never validates.
std::uint64_t seed_for(Operation operation, Phase phase, std::uint64_t number, std::size_t bytes) {
    const auto tag = static_cast<std::uint64_t>(operation) * 4 + static_cast<std::uint64_t>(phase);
    return comm::payload_seed(number * 16 + tag, bytes);
}

std::uint64_t number_of(int message) { return static_cast<std::uint64_t>(message + 1); }  // the timed payload is 0

// Streams: the number also says which way and who provided it, so in a bi-directional stream a
// message reflected back to its sender does not validate either.
std::uint64_t stream_seed(Operation operation, bool both_ways, bool from_initiator, int message, std::size_t bytes) {
    return seed_for(operation, Phase::stream, (number_of(message) * 2 + (both_ways ? 1 : 0)) * 2 + (from_initiator ? 1 : 0),
                    bytes);
}

unsigned char& last_byte(std::byte* message, std::size_t bytes) {
    return reinterpret_cast<unsigned char&>(message[bytes - 1]);
}

WorkKind work_kind(Operation operation) {
    return operation == Operation::write  ? WorkKind::rdma_write
           : operation == Operation::read ? WorkKind::rdma_read
                                          : WorkKind::send;
}

class Side {
public:
    Side(RcEndpoint& endpoint, PeerChannel& channel, bool initiator, const SweepPlan& plan, PlantedFaults faults)
        : ep_(endpoint), channel_(channel), initiator_(initiator), plan_(plan), faults_(faults),
          slot_bytes_(sweep_buffer_bytes(plan) / slots), validation_messages_(validation_messages(plan.queue_depth)) {}

    SweepOutcome run() {
        SweepOutcome outcome;
        for (const auto operation : plan_.operations)
            for (const auto bytes : plan_.sizes) {
                SizeFigures figures{operation, bytes, {}, 0.0, 0.0, 0.0};
                if (plan_.latency_iterations > 0) {
                    if (operation == Operation::read) {
                        figures.latency_us = read_latency(bytes);
                        validate_reads(bytes);
                    } else {
                        figures.latency_us = pingpong_latency(operation, bytes);
                        validate_pingpong(operation, bytes);
                    }
                }
                const auto uni = stream(operation, bytes, false);
                validate_stream(operation, bytes, false);
                figures.bandwidth_gbps = uni.mine_gbps;
                figures.message_rate_mps = uni.mine_messages_per_s / 1e6;
                if (plan_.bidirectional) {
                    const auto both = stream(operation, bytes, true);
                    validate_stream(operation, bytes, true);
                    figures.bibandwidth_gbps = both.mine_gbps + both.peer_gbps;
                }
                // The initiator measured latency and one-way figures: both sides keep its numbers.
                const SizeFigures initiators = channel_.swap(figures);
                outcome.figures.push_back(initiator_ ? figures : initiators);
            }
        outcome.mismatches = merge_with_peer(channel_, ledger_.mismatches());
        outcome.validated_messages = ledger_.validated();
        outcome.timed_payload_accesses = ledger_.timed_accesses();
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

    // The payload this side provides (through the ledger, which plants a corruption when asked).
    void provide(int index, std::size_t bytes, std::uint64_t seed, bool first_validated = false) {
        ledger_.provide({slot(index), bytes}, seed, first_validated);
    }

    // Makes the last byte differ from what message `seed` will bring, so its arrival shows.
    void arm(int index, std::size_t bytes, std::uint64_t seed) {
        const auto expected = static_cast<unsigned char>(comm::expected_byte(seed, bytes - 1));
        std::atomic_ref<unsigned char>(last_byte(slot(index), bytes)).store(~expected, std::memory_order_relaxed);
    }

    // Arms and makes the first byte differ too: a message that never lands shows as a mismatch.
    void spoil(int index, std::size_t bytes, std::uint64_t seed) {
        arm(index, bytes, seed);
        slot(index)[0] = ~comm::expected_byte(seed, 0);
    }

    void wait_for_arrival(int index, std::size_t bytes, std::uint64_t seed, std::string_view what) {
        const auto expected = static_cast<unsigned char>(comm::expected_byte(seed, bytes - 1));
        const std::atomic_ref<unsigned char> flag(last_byte(slot(index), bytes));
        const Stopwatch clock;
        for (std::size_t spins = 1; flag.load(std::memory_order_acquire) != expected; ++spins)
            if (spins % 4096 == 0 && clock.seconds() > plan_.timeout_s)
                throw VerbsError(fmt::format("the peer's {} did not arrive within {} s", what, plan_.timeout_s));
    }

    // `message`: the validation message's number in its pass.
    void check(int index, std::size_t bytes, std::uint64_t seed, std::string_view what, int message) {
        ledger_.check({slot(index), bytes}, seed, what, message);
    }

    std::uint64_t latency_seed(Operation operation, bool ping, int message, std::size_t bytes) const {
        return seed_for(operation, ping ? Phase::latency_ping : Phase::latency_pong, number_of(message), bytes);
    }

    // Write or send ping-pong: the initiator times post -> the echo's arrival; one-way latency
    // is half of it. Each side answers from its own send slot, filled once before the loop, into
    // the peer's one receive slot. A write's arrival shows on the last byte: the receiver sets it
    // unlike the payload's before the peer can write again (one store per message, as perftest
    // marks its messages); a send's arrival is its receive completion.
    stats::Summary pingpong_latency(Operation operation, std::size_t bytes) {
        const int warmup = plan_.latency_warmup;
        const int total = warmup + plan_.latency_iterations;
        const bool by_send = operation == Operation::send;
        const auto what = fmt::format("{} latency", to_string(operation));
        const WorkKind kind = work_kind(operation);
        const auto incoming = latency_seed(operation, !initiator_, timed_payload, bytes);

        provide(send_slot_0, bytes, latency_seed(operation, initiator_, timed_payload, bytes));
        int receives_posted = 0;
        const auto expect = [&] {
            if (!by_send) arm(receive_slot_0, bytes, incoming);
            else if (receives_posted < total)  // exactly one receive per message, so none is left for the next pass
                post(WorkKind::receive, receive_slot_0, bytes, 0, static_cast<std::uint64_t>(receives_posted++));
        };
        expect();
        if (by_send) expect();  // one receive ahead, so a send never waits for one
        channel_.barrier();

        std::vector<double> micros;
        micros.reserve(static_cast<std::size_t>(plan_.latency_iterations));
        {
            const PayloadLedger::TimedLoop timed(ledger_);
            const auto arrive = [&] {
                if (by_send) ep_.wait(ep_.receive_cq(), plan_.timeout_s, what);
                else wait_for_arrival(receive_slot_0, bytes, incoming, what);
            };
            for (int j = 0; j < total; ++j) {
                if (initiator_) {
                    planted_delay(faults_.delay_s);
                    const Stopwatch round_trip;
                    post(kind, send_slot_0, bytes, receive_slot_0, static_cast<std::uint64_t>(j));
                    arrive();
                    const double seconds = round_trip.seconds();
                    expect();
                    ep_.wait(ep_.send_cq(), plan_.timeout_s, what);
                    if (j >= warmup) micros.push_back(seconds / 2 * 1e6);
                } else {
                    arrive();
                    expect();
                    planted_delay(faults_.delay_s);
                    post(kind, send_slot_0, bytes, receive_slot_0, static_cast<std::uint64_t>(j));
                    ep_.wait(ep_.send_cq(), plan_.timeout_s, what);
                }
            }
        }
        channel_.barrier();
        return stats::summarize(micros);
    }

    // Untimed, the ping-pong's buffers and size: every ping and pong its own pattern, checked
    // where it lands before the answer lets the peer send the next.
    void validate_pingpong(Operation operation, std::size_t bytes) {
        const bool by_send = operation == Operation::send;
        const auto what = fmt::format("{} latency", to_string(operation));
        const WorkKind kind = work_kind(operation);
        const auto incoming = [&](int k) { return latency_seed(operation, !initiator_, k, bytes); };
        const auto expect = [&](int k) {
            if (by_send) post(WorkKind::receive, receive_slot_0, bytes, 0, static_cast<std::uint64_t>(k));
            else spoil(receive_slot_0, bytes, incoming(k));
        };
        const auto arrive = [&](int k) {
            if (by_send) ep_.wait(ep_.receive_cq(), plan_.timeout_s, what);
            else wait_for_arrival(receive_slot_0, bytes, incoming(k), what);
            check(receive_slot_0, bytes, incoming(k), what, k);
        };
        const auto answer = [&](int k) {
            provide(send_slot_0, bytes, latency_seed(operation, initiator_, k, bytes), k == 0);
            post(kind, send_slot_0, bytes, receive_slot_0, static_cast<std::uint64_t>(k));
            ep_.wait(ep_.send_cq(), plan_.timeout_s, what);
        };
        ledger_.begin_pass();
        expect(0);
        channel_.barrier();
        for (int k = 0; k < validation_messages_; ++k) {
            if (initiator_) {
                answer(k);
                arrive(k);
                if (k + 1 < validation_messages_) expect(k + 1);
            } else {
                arrive(k);
                if (k + 1 < validation_messages_) expect(k + 1);
                answer(k);
            }
        }
        channel_.barrier();
    }

    // RDMA read round trip: the initiator reads the responder's slot, filled once before the
    // loop, into its receive slot and waits for the completion; the responder only provides.
    stats::Summary read_latency(std::size_t bytes) {
        if (!initiator_)
            provide(send_slot_0, bytes, seed_for(Operation::read, Phase::read_source, number_of(timed_payload), bytes));
        channel_.barrier();
        std::vector<double> micros;
        if (initiator_) {
            const PayloadLedger::TimedLoop timed(ledger_);
            const int total = plan_.latency_warmup + plan_.latency_iterations;
            for (int j = 0; j < total; ++j) {
                const Stopwatch round_trip;
                post(WorkKind::rdma_read, receive_slot_0, bytes, send_slot_0, static_cast<std::uint64_t>(j));
                ep_.wait(ep_.send_cq(), plan_.timeout_s, "read latency");
                const double seconds = round_trip.seconds();
                if (j >= plan_.latency_warmup) micros.push_back(seconds * 1e6);
            }
        }
        channel_.barrier();
        return stats::summarize(micros);
    }

    // Untimed, the read's buffers and size: the responder provides a pattern per read, the
    // initiator reads it into a spoiled slot and checks it.
    void validate_reads(std::size_t bytes) {
        ledger_.begin_pass();
        for (int k = 0; k < validation_messages_; ++k) {
            const auto seed = seed_for(Operation::read, Phase::read_source, number_of(k), bytes);
            if (initiator_) spoil(receive_slot_0, bytes, seed);
            else provide(send_slot_0, bytes, seed, k == 0);
            channel_.barrier();
            if (initiator_) {
                post(WorkKind::rdma_read, receive_slot_0, bytes, send_slot_0, static_cast<std::uint64_t>(k));
                ep_.wait(ep_.send_cq(), plan_.timeout_s, "read latency");
                check(receive_slot_0, bytes, seed, "read latency", k);
            }
            channel_.barrier();  // the source stays as it is until it was read
        }
    }

    struct StreamRates {
        double mine_gbps = 0.0;
        double peer_gbps = 0.0;
        double mine_messages_per_s = 0.0;
    };

    struct StreamRoles {
        bool posts = false;       // this side posts the writes, reads or sends
        bool provides = false;    // the data comes from this side's send slot
        bool lands_here = false;  // the data lands in this side's receive slots
    };
    StreamRoles roles(Operation operation, bool both_ways) const {
        StreamRoles r;
        r.posts = both_ways || initiator_;
        r.provides = operation == Operation::read ? (both_ways || !initiator_) : r.posts;
        r.lands_here = operation == Operation::read ? r.posts : (both_ways || !initiator_);
        return r;
    }
    static std::string stream_what(Operation operation, bool both_ways) {
        return fmt::format("{} {} bandwidth", to_string(operation), both_ways ? "bi-directional" : "one-way");
    }

    // Streams messages with up to queue_depth in flight. One way: the initiator posts (for
    // send the responder receives); both ways: each side posts (and receives sends). The one
    // payload is written before the clock starts; the stream never touches it.
    StreamRates stream(Operation operation, std::size_t bytes, bool both_ways) {
        const auto role = roles(operation, both_ways);
        const auto what = stream_what(operation, both_ways);
        if (role.provides) provide(send_slot_0, bytes, stream_seed(operation, both_ways, initiator_, timed_payload, bytes));
        double seconds = 0.0;
        {
            const PayloadLedger::TimedLoop timed(ledger_);
            if (plan_.bandwidth_warmup > 0) run_stream(operation, bytes, role, plan_.bandwidth_warmup, what);
            seconds = run_stream(operation, bytes, role, plan_.bandwidth_iterations, what);
        }
        StreamRates rates;
        if (role.posts && seconds > 0) {
            rates.mine_gbps = static_cast<double>(bytes) * plan_.bandwidth_iterations * 8 / seconds / 1e9;
            rates.mine_messages_per_s = plan_.bandwidth_iterations / seconds;
        }
        rates.peer_gbps = channel_.swap(rates.mine_gbps);
        return rates;
    }

    // One stream of `messages`; returns this side's seconds from the first post to the last
    // completion (0 when it only receives). Both sides start from the barrier; on RC a write's
    // or send's completion is the responder's acknowledgement that the data arrived (remote
    // completion) and a read's that the data is here, so the clock runs from a common start
    // until the last message has arrived.
    double run_stream(Operation operation, std::size_t bytes, const StreamRoles& role, int messages, std::string_view what) {
        const bool receives_sends = operation == Operation::send && role.lands_here;
        const int depth = plan_.queue_depth;
        int receives_posted = 0;
        if (receives_sends)
            for (; receives_posted < std::min(depth, messages); ++receives_posted)
                post(WorkKind::receive, receive_slot_0 + receives_posted % 2, bytes, 0,
                     static_cast<std::uint64_t>(receives_posted));
        channel_.barrier();

        const WorkKind kind = work_kind(operation);
        const int local_slot = operation == Operation::read ? receive_slot_0 : send_slot_0;
        const int remote = operation == Operation::read ? send_slot_0 : receive_slot_0;
        int posted = 0;
        int completed = 0;
        int received = 0;
        const int to_complete = role.posts ? messages : 0;
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
                if (!completion.ok)
                    throw VerbsError(fmt::format("{} receive completed with error: {}", what, completion.error));
                ++received;
                if (receives_posted < to_receive) {
                    post(WorkKind::receive, receive_slot_0 + receives_posted % 2, bytes, 0,
                         static_cast<std::uint64_t>(receives_posted));
                    ++receives_posted;
                }
            }
            if (progress) idle.restart();
            else if (idle.seconds() > plan_.timeout_s)
                throw VerbsError(fmt::format("{}: no completion for {} s ({} of {} sent, {} of {} received)", what,
                                             plan_.timeout_s, completed, to_complete, received, to_receive));
        }
        const double seconds = role.posts ? clock.seconds() : 0.0;
        channel_.barrier();
        return seconds;
    }

    // Untimed, the stream's buffers and size: one message at a time, each its own pattern, into
    // the slot the timed stream's message of that number used, checked where it lands.
    void validate_stream(Operation operation, std::size_t bytes, bool both_ways) {
        const auto role = roles(operation, both_ways);
        const auto what = stream_what(operation, both_ways);
        const bool receives_sends = operation == Operation::send && role.lands_here;
        const int local_slot = operation == Operation::read ? receive_slot_0 : send_slot_0;
        const int remote = operation == Operation::read ? send_slot_0 : receive_slot_0;
        ledger_.begin_pass();
        for (int k = 0; k < validation_messages_; ++k) {
            const int landing = operation == Operation::send ? receive_slot_0 + k % 2 : receive_slot_0;
            const auto incoming = stream_seed(operation, both_ways, !initiator_, k, bytes);
            if (role.provides) provide(send_slot_0, bytes, stream_seed(operation, both_ways, initiator_, k, bytes), k == 0);
            if (role.lands_here) {
                spoil(landing, bytes, incoming);
                if (receives_sends) post(WorkKind::receive, landing, bytes, 0, static_cast<std::uint64_t>(k));
            }
            channel_.barrier();
            if (role.posts) {
                post(work_kind(operation), local_slot, bytes, remote, static_cast<std::uint64_t>(k));
                ep_.wait(ep_.send_cq(), plan_.timeout_s, what);
            }
            if (role.lands_here) {
                if (receives_sends) ep_.wait(ep_.receive_cq(), plan_.timeout_s, what);
                else if (operation == Operation::write) wait_for_arrival(landing, bytes, incoming, what);
                check(landing, bytes, incoming, what, k);
            }
            channel_.barrier();  // checked before the next message may overwrite the slot
        }
    }

    RcEndpoint& ep_;
    PeerChannel& channel_;
    bool initiator_;
    const SweepPlan& plan_;
    PlantedFaults faults_;
    std::size_t slot_bytes_;
    int validation_messages_;
    PayloadLedger ledger_{"", faults_.corrupt};
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
