#include "ib/ucx/ucx_pair.hpp"

#include "comm/payload.hpp"
#include "core/clock.hpp"
#include "core/planted_delay.hpp"
#include "ib/pair/mismatch_notes.hpp"
#include "ib/pair/payload_ledger.hpp"
#include "ib/pair/validation_pass.hpp"
#include "ib/ucx/ucx_handles.hpp"
#include "ib/ucx/ucx_transports.hpp"
#include "ib/verbs/rc_endpoint.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace shakedown::ib::ucx {

std::string_view to_string(UcxOperation operation) {
    switch (operation) {
        case UcxOperation::tag: return "tag";
        case UcxOperation::put: return "put";
        case UcxOperation::get: return "get";
    }
    return "?";
}

namespace {

constexpr ucp_tag_t data_tag = 0x5348'4b44'0000'0001ULL;
constexpr ucp_tag_t done_tag = 0x5348'4b44'0000'0002ULL;  // "the initiator has finished this phase"
constexpr ucp_tag_t step_tag = 0x5348'4b44'0000'0003ULL;  // a validation message landed, or was checked
constexpr ucp_tag_t full_mask = ~ucp_tag_t{0};

// The message number of the one payload a timed loop moves; validation messages are 0, 1, ...
constexpr int timed_payload = -1;

// Slots of the buffer: the peer's data lands in slot 0; this side sends, puts and is read from slot 1.
constexpr int landing_slot = 0;
constexpr int source_slot = 1;

enum Phase : int { ping = 0, pong = 1, rma_latency_phase = 2, stream_phase = 3 };

std::vector<std::byte> trade(PeerChannel& channel, const std::vector<std::byte>& mine) {
    const auto their_size = channel.swap(static_cast<std::uint64_t>(mine.size()));
    std::vector<std::byte> theirs(their_size);
    channel.exchange(mine, theirs);
    return theirs;
}

class UcxSide {
public:
    UcxSide(PeerChannel& channel, bool initiator, const UcxPlan& plan, PlantedFaults faults)
        : channel_(channel), initiator_(initiator), plan_(plan), faults_(faults),
          slot_bytes_(*std::max_element(plan.sizes.begin(), plan.sizes.end())), buffer_(2 * slot_bytes_),
          endpoint_(worker_, trade(channel, worker_.address())), memory_(context_, buffer_.data(), buffer_.size()),
          remote_key_(endpoint_, trade(channel, memory_.packed_key())),
          remote_address_(channel.swap(reinterpret_cast<std::uint64_t>(buffer_.data()))) {}

    UcxOutcome run() {
        UcxOutcome outcome;
        for (const auto operation : {UcxOperation::tag, UcxOperation::put, UcxOperation::get})
            for (const auto bytes : plan_.sizes) {
                UcxFigures figures{operation, bytes, {}, 0.0, 0.0};
                const bool tag = operation == UcxOperation::tag;
                figures.latency_us = tag ? tag_latency(bytes) : rma_latency(operation, bytes);
                if (outcome.endpoint_info.empty()) outcome.endpoint_info = endpoint_.describe();  // wired up by now
                if (tag)
                    validate_tag_pingpong(bytes);
                else
                    validate_rma(operation, bytes, rma_latency_phase, fmt::format("{} latency", to_string(operation)));
                const double seconds = tag ? tag_stream(bytes) : rma_stream(operation, bytes);
                if (tag)
                    validate_tag_stream(bytes);
                else
                    validate_rma(operation, bytes, stream_phase, fmt::format("{} bandwidth", to_string(operation)));
                if (seconds > 0) {
                    figures.bandwidth_gbs = static_cast<double>(bytes) * plan_.bandwidth_iterations / seconds / 1e9;
                    figures.message_rate_mps = plan_.bandwidth_iterations / seconds / 1e6;
                }
                const UcxFigures initiators = channel_.swap(figures);
                outcome.figures.push_back(initiator_ ? figures : initiators);
            }
        outcome.transports = transports_in(outcome.endpoint_info);
        outcome.mismatches = merge_with_peer(channel_, ledger_.mismatches());
        outcome.validated_messages = ledger_.validated();
        outcome.timed_payload_accesses = ledger_.timed_accesses();
        return outcome;
    }

private:
    std::byte* slot(int index) const { return buffer_.data() + static_cast<std::size_t>(index) * slot_bytes_; }
    std::uint64_t remote_slot(int index) const { return remote_address_ + static_cast<std::uint64_t>(index) * slot_bytes_; }

    // `message`: timed_payload for the timed loops' one payload, else the validation message.
    static std::uint64_t seed(UcxOperation operation, int phase, int message, std::size_t bytes) {
        return comm::payload_seed(static_cast<std::uint64_t>(message + 1) * 16 + static_cast<std::uint64_t>(operation) * 4 +
                                      static_cast<std::uint64_t>(phase),
                                  bytes);
    }

    // Through the ledger, which plants a corruption when asked.
    void provide(int index, std::size_t bytes, std::uint64_t pattern, bool first_validated = false) {
        ledger_.provide({slot(index), bytes}, pattern, first_validated);
    }

    void poison(int index, std::size_t bytes, std::uint64_t pattern) {  // a transfer that never lands shows
        ledger_.touch();
        slot(index)[0] = ~comm::expected_byte(pattern, 0);
        slot(index)[bytes - 1] = ~comm::expected_byte(pattern, bytes - 1);
    }

    void check(int index, std::size_t bytes, std::uint64_t pattern, std::string_view what, int message) {
        ledger_.check({slot(index), bytes}, pattern, what, message);
    }

    ucs_status_ptr_t send(int index, std::size_t bytes, ucp_tag_t tag) {
        ucp_request_param_t params{};
        return ucp_tag_send_nbx(endpoint_.get(), slot(index), bytes, tag, &params);
    }
    ucs_status_ptr_t receive(int index, std::size_t bytes, ucp_tag_t tag) {
        ucp_request_param_t params{};
        return ucp_tag_recv_nbx(worker_.get(), slot(index), bytes, tag, full_mask, &params);
    }
    void wait(ucs_status_ptr_t request, std::string_view what) { worker_.wait(request, what, plan_.timeout_s); }

    void flush() {
        ucp_request_param_t params{};
        wait(ucp_ep_flush_nbx(endpoint_.get(), &params), "ucp_ep_flush_nbx");
    }
    ucs_status_ptr_t put(std::size_t bytes) {
        ucp_request_param_t params{};
        return ucp_put_nbx(endpoint_.get(), slot(source_slot), bytes, remote_slot(landing_slot), remote_key_.get(), &params);
    }
    ucs_status_ptr_t get(std::size_t bytes) {
        ucp_request_param_t params{};
        return ucp_get_nbx(endpoint_.get(), slot(landing_slot), bytes, remote_slot(source_slot), remote_key_.get(), &params);
    }

    // A side waiting here drives its worker, which TCP and shared memory need to move RMA data
    // on the target; so the pair lines up its put/get phases with these, not with the channel.
    void listen(ucp_tag_t tag, std::string_view what) {
        std::uint64_t word = 0;
        ucp_request_param_t params{};
        wait(ucp_tag_recv_nbx(worker_.get(), &word, sizeof word, tag, full_mask, &params), what);
    }
    void say(ucp_tag_t tag, std::string_view what) {
        static const std::uint64_t word = 1;
        ucp_request_param_t params{};
        wait(ucp_tag_send_nbx(endpoint_.get(), &word, sizeof word, tag, &params), what);
    }
    // The responder of a put/get phase only drives its worker until the initiator says it is done.
    void serve_until_done() { listen(done_tag, "the initiator's done message"); }
    void say_done() { say(done_tag, "the done message"); }

    // Ping-pong: each side answers from its own send slot, filled once before the loop, into its
    // one receive slot.
    stats::Summary tag_latency(std::size_t bytes) {
        const int warmup = plan_.latency_warmup;
        const int total = warmup + plan_.latency_iterations;
        provide(source_slot, bytes, seed(UcxOperation::tag, initiator_ ? ping : pong, timed_payload, bytes));
        channel_.barrier();
        std::vector<double> micros;
        {
            const PayloadLedger::TimedLoop timed(ledger_);
            for (int j = 0; j < total; ++j) {
                if (initiator_) {
                    planted_delay(faults_.delay_s);
                    const Stopwatch round_trip;
                    auto* echo = receive(landing_slot, bytes, data_tag);
                    wait(send(source_slot, bytes, data_tag), "tag send");
                    wait(echo, "tag receive");
                    if (j >= warmup) micros.push_back(round_trip.seconds() / 2 * 1e6);
                } else {
                    wait(receive(landing_slot, bytes, data_tag), "tag receive");
                    planted_delay(faults_.delay_s);
                    wait(send(source_slot, bytes, data_tag), "tag send");
                }
            }
        }
        channel_.barrier();
        return stats::summarize(micros);
    }

    // Untimed, the ping-pong's buffers and size: every ping and pong its own pattern, checked on
    // arrival.
    void validate_tag_pingpong(std::size_t bytes) {
        const auto incoming = [&](int k) { return seed(UcxOperation::tag, initiator_ ? pong : ping, k, bytes); };
        const auto outgoing = [&](int k) { return seed(UcxOperation::tag, initiator_ ? ping : pong, k, bytes); };
        ledger_.begin_pass();
        channel_.barrier();
        for (int k = 0; k < validation_messages_; ++k) {
            if (initiator_) {
                provide(source_slot, bytes, outgoing(k), k == 0);
                auto* echo = receive(landing_slot, bytes, data_tag);
                wait(send(source_slot, bytes, data_tag), "tag send");
                wait(echo, "tag receive");
                check(landing_slot, bytes, incoming(k), "tag latency", k);
            } else {
                wait(receive(landing_slot, bytes, data_tag), "tag receive");
                check(landing_slot, bytes, incoming(k), "tag latency", k);
                provide(source_slot, bytes, outgoing(k), k == 0);
                wait(send(source_slot, bytes, data_tag), "tag send");
            }
        }
        channel_.barrier();
    }

    // put: the initiator's source slot lands in the responder's landing slot; get: the
    // responder's source slot lands in the initiator's. One payload, provided before the loop.
    stats::Summary rma_latency(UcxOperation operation, std::size_t bytes) {
        const bool is_put = operation == UcxOperation::put;
        if (is_put == initiator_) provide(source_slot, bytes, seed(operation, rma_latency_phase, timed_payload, bytes));
        channel_.barrier();
        std::vector<double> micros;
        if (initiator_) {
            {
                const PayloadLedger::TimedLoop timed(ledger_);
                const int total = plan_.latency_warmup + plan_.latency_iterations;
                for (int j = 0; j < total; ++j) {
                    planted_delay(faults_.delay_s);
                    const Stopwatch round_trip;
                    if (is_put) {
                        wait(put(bytes), "ucp_put_nbx");
                        flush();
                    } else {
                        wait(get(bytes), "ucp_get_nbx");
                    }
                    if (j >= plan_.latency_warmup) micros.push_back(round_trip.seconds() * 1e6);
                }
            }
            say_done();
        } else {
            serve_until_done();
        }
        channel_.barrier();
        return stats::summarize(micros);
    }

    // Untimed, the put or get buffers and size of a timed loop: one message at a time, each its
    // own pattern, checked where it lands (put: by the responder once the initiator's flush
    // reported remote completion; get: by the initiator once the get completed).
    void validate_rma(UcxOperation operation, std::size_t bytes, int phase, const std::string& what) {
        const bool is_put = operation == UcxOperation::put;
        ledger_.begin_pass();
        if (is_put && !initiator_) poison(landing_slot, bytes, seed(operation, phase, 0, bytes));
        channel_.barrier();
        for (int k = 0; k < validation_messages_; ++k) {
            const auto pattern = seed(operation, phase, k, bytes);
            if (is_put && initiator_) {
                provide(source_slot, bytes, pattern, k == 0);
                wait(put(bytes), "ucp_put_nbx");
                flush();
                say(step_tag, "the validation put's notice");
                listen(step_tag, "the responder's check of a validation put");
            } else if (is_put) {
                listen(step_tag, "the initiator's validation put");
                check(landing_slot, bytes, pattern, what, k);
                if (k + 1 < validation_messages_) poison(landing_slot, bytes, seed(operation, phase, k + 1, bytes));
                say(step_tag, "the validation put's check");
            } else if (initiator_) {
                listen(step_tag, "the responder's validation source");
                poison(landing_slot, bytes, pattern);
                wait(get(bytes), "ucp_get_nbx");
                check(landing_slot, bytes, pattern, what, k);
                say(step_tag, "the validation get's check");
            } else {
                provide(source_slot, bytes, pattern, k == 0);
                say(step_tag, "the validation source's notice");
                listen(step_tag, "the initiator's validation get");  // the source stays until it was read
            }
        }
        channel_.barrier();
    }

    // Tag bandwidth, OSU's way: both start from the barrier, the initiator sends windows from its
    // one send slot against windows of receives into one receive slot, and its clock stops on
    // the responder's acknowledgement after the last window.
    double tag_stream(std::size_t bytes) {
        if (initiator_) provide(source_slot, bytes, seed(UcxOperation::tag, stream_phase, timed_payload, bytes));
        channel_.barrier();
        double seconds = 0.0;
        {
            const PayloadLedger::TimedLoop timed(ledger_);
            const Stopwatch clock;
            std::vector<ucs_status_ptr_t> requests;
            for (int sent = 0; sent < plan_.bandwidth_iterations; sent += plan_.window) {
                const int count = std::min(plan_.window, plan_.bandwidth_iterations - sent);
                requests.clear();
                for (int k = 0; k < count; ++k)
                    requests.push_back(initiator_ ? send(source_slot, bytes, data_tag) : receive(landing_slot, bytes, data_tag));
                for (auto* request : requests) wait(request, "tag bandwidth");
            }
            if (initiator_) {
                serve_until_done();  // the responder's acknowledgement
                seconds = clock.seconds();
            } else {
                say_done();
            }
        }
        channel_.barrier();
        return seconds;
    }

    // Untimed, the tag stream's buffers and size: each message its own pattern, checked on
    // arrival before the next receive is posted (tag order keeps them in sequence).
    void validate_tag_stream(std::size_t bytes) {
        ledger_.begin_pass();
        channel_.barrier();
        for (int k = 0; k < validation_messages_; ++k) {
            const auto pattern = seed(UcxOperation::tag, stream_phase, k, bytes);
            if (initiator_) {
                provide(source_slot, bytes, pattern, k == 0);
                wait(send(source_slot, bytes, data_tag), "tag bandwidth");
            } else {
                wait(receive(landing_slot, bytes, data_tag), "tag bandwidth");
                check(landing_slot, bytes, pattern, "tag bandwidth", k);
            }
        }
        channel_.barrier();
    }

    // Put/get bandwidth: both start from the barrier; the initiator's clock stops when the last
    // window's gets have completed (the data is here) or, for puts, when the flush after the last
    // window reports remote completion.
    double rma_stream(UcxOperation operation, std::size_t bytes) {
        const bool is_put = operation == UcxOperation::put;
        if (is_put == initiator_) provide(source_slot, bytes, seed(operation, stream_phase, timed_payload, bytes));
        channel_.barrier();
        const auto what = fmt::format("{} bandwidth", to_string(operation));
        double seconds = 0.0;
        if (initiator_) {
            {
                const PayloadLedger::TimedLoop timed(ledger_);
                const Stopwatch clock;
                std::vector<ucs_status_ptr_t> requests;
                for (int posted = 0; posted < plan_.bandwidth_iterations; posted += plan_.window) {
                    const int count = std::min(plan_.window, plan_.bandwidth_iterations - posted);
                    requests.clear();
                    for (int k = 0; k < count; ++k) requests.push_back(is_put ? put(bytes) : get(bytes));
                    for (auto* request : requests) wait(request, what);
                }
                if (is_put) flush();
                seconds = clock.seconds();
            }
            say_done();
        } else {
            serve_until_done();
        }
        channel_.barrier();
        return seconds;
    }

    PeerChannel& channel_;
    bool initiator_;
    const UcxPlan& plan_;
    PlantedFaults faults_;
    std::size_t slot_bytes_;
    // Declared in creation order; released in reverse (rkey and endpoint before the worker).
    Context context_;
    Worker worker_{context_};
    HostBuffer buffer_;
    Endpoint endpoint_;
    MappedMemory memory_;
    RemoteKey remote_key_;
    std::uint64_t remote_address_;
    int validation_messages_ = validation_messages(plan_.window);
    PayloadLedger ledger_{"UCX ", faults_.corrupt};
};

}  // namespace

UcxOutcome run_ucx_pair(PeerChannel& channel, bool initiator, const UcxPlan& plan, PlantedFaults faults) {
    if (plan.sizes.empty() || *std::min_element(plan.sizes.begin(), plan.sizes.end()) < 1)
        throw UcxError("UCX sizes must be at least 1 B");
    UcxOutcome outcome;
    {
        UcxSide side(channel, initiator, plan, faults);
        outcome = side.run();
    }  // endpoints flush-close on both sides at once; workers go after
    channel.barrier();
    return outcome;
}

}  // namespace shakedown::ib::ucx
