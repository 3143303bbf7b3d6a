#include "ib/ucx/ucx_pair.hpp"

#include "core/clock.hpp"
#include "ib/mismatch_notes.hpp"
#include "ib/rc_endpoint.hpp"
#include "ib/ucx/ucx_handles.hpp"
#include "ib/ucx/ucx_transports.hpp"
#include "comm/payload.hpp"
#include "core/planted_delay.hpp"

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
constexpr ucp_tag_t full_mask = ~ucp_tag_t{0};

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
          slot_bytes_(*std::max_element(plan.sizes.begin(), plan.sizes.end())), buffer_(4 * slot_bytes_),
          endpoint_(worker_, trade(channel, worker_.address())), memory_(context_, buffer_.data(), buffer_.size()),
          remote_key_(endpoint_, trade(channel, memory_.packed_key())),
          remote_address_(channel.swap(reinterpret_cast<std::uint64_t>(buffer_.data()))) {}

    UcxOutcome run() {
        UcxOutcome outcome;
        for (const auto operation : {UcxOperation::tag, UcxOperation::put, UcxOperation::get})
            for (const auto bytes : plan_.sizes) {
                UcxFigures figures{operation, bytes, {}, 0.0, 0.0};
                noted_ = false;
                figures.latency_us = operation == UcxOperation::tag ? tag_latency(bytes) : rma_latency(operation, bytes);
                if (outcome.endpoint_info.empty()) outcome.endpoint_info = endpoint_.describe();  // wired up by now
                noted_ = false;
                const double seconds = operation == UcxOperation::tag ? tag_stream(bytes) : rma_stream(operation, bytes);
                if (seconds > 0) {
                    figures.bandwidth_gbs = static_cast<double>(bytes) * plan_.bandwidth_iterations / seconds / 1e9;
                    figures.message_rate_mps = plan_.bandwidth_iterations / seconds / 1e6;
                }
                const UcxFigures initiators = channel_.swap(figures);
                outcome.figures.push_back(initiator_ ? figures : initiators);
            }
        outcome.transports = transports_in(outcome.endpoint_info);
        outcome.mismatches = merge_with_peer(channel_, mismatches_);
        return outcome;
    }

private:
    std::byte* slot(int index) const { return buffer_.data() + static_cast<std::size_t>(index) * slot_bytes_; }
    std::uint64_t remote_slot(int index) const { return remote_address_ + static_cast<std::uint64_t>(index) * slot_bytes_; }

    static std::uint64_t seed(UcxOperation operation, int phase, int iteration, std::size_t bytes) {
        return comm::payload_seed(static_cast<std::uint64_t>(iteration) * 16 + static_cast<std::uint64_t>(operation) * 4 +
                                     static_cast<std::uint64_t>(phase),
                                 bytes);
    }

    void provide(int index, std::size_t bytes, std::uint64_t pattern, bool first_timed) {
        comm::fill_payload({slot(index), bytes}, pattern);
        if (faults_.corrupt && first_timed) slot(index)[0] = ~slot(index)[0];
    }

    void poison(int index, std::size_t bytes, std::uint64_t pattern) {  // a transfer that never lands shows
        slot(index)[0] = ~comm::expected_byte(pattern, 0);
        slot(index)[bytes - 1] = ~comm::expected_byte(pattern, bytes - 1);
    }

    void check(int index, std::size_t bytes, std::uint64_t pattern, std::string_view what, int message) {
        const auto bad = comm::first_mismatch({slot(index), bytes}, pattern);
        if (!bad || noted_) return;
        noted_ = true;
        mismatches_.push_back(fmt::format("payload mismatch in UCX {} {} B, message {}: byte {} is 0x{:02x}, expected 0x{:02x}",
                                          what, bytes, message, *bad, static_cast<unsigned>(slot(index)[*bad]),
                                          static_cast<unsigned>(comm::expected_byte(pattern, *bad))));
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

    // The responder of a put/get phase only drives its worker (TCP and shared memory move RMA
    // data through the target's progress) until the initiator says it is done.
    void serve_until_done() {
        std::uint64_t word = 0;
        ucp_request_param_t params{};
        wait(ucp_tag_recv_nbx(worker_.get(), &word, sizeof word, done_tag, full_mask, &params), "the initiator's done message");
    }
    void say_done() {
        static const std::uint64_t word = 1;
        ucp_request_param_t params{};
        wait(ucp_tag_send_nbx(endpoint_.get(), &word, sizeof word, done_tag, &params), "the done message");
    }

    stats::Summary tag_latency(std::size_t bytes) {
        const int warmup = plan_.latency_warmup;
        const int total = warmup + plan_.latency_iterations;
        const auto incoming = [&](int j) { return seed(UcxOperation::tag, initiator_ ? 1 : 0, j, bytes); };
        const auto outgoing = [&](int j) { return seed(UcxOperation::tag, initiator_ ? 0 : 1, j, bytes); };
        provide(2, bytes, outgoing(0), warmup == 0);
        channel_.barrier();
        std::vector<double> micros;
        for (int j = 0; j < total; ++j) {
            const int parity = j % 2;
            if (initiator_) {
                planted_delay(faults_.delay_s);
                const Stopwatch round_trip;
                auto* echo = receive(parity, bytes, data_tag);
                wait(send(2 + parity, bytes, data_tag), "tag send");
                wait(echo, "tag receive");
                if (j >= warmup) micros.push_back(round_trip.seconds() / 2 * 1e6);
            } else {
                wait(receive(parity, bytes, data_tag), "tag receive");
                planted_delay(faults_.delay_s);
                wait(send(2 + parity, bytes, data_tag), "tag send");
            }
            check(parity, bytes, incoming(j), "tag latency", j - warmup);
            if (j + 1 < total) provide(2 + (j + 1) % 2, bytes, outgoing(j + 1), j + 1 == warmup);
        }
        channel_.barrier();
        return stats::summarize(micros);
    }

    // put: the initiator's data must land in the responder's slot 0; get: the responder's slot 2
    // must land in the initiator's slot 0.
    stats::Summary rma_latency(UcxOperation operation, std::size_t bytes) {
        const bool put = operation == UcxOperation::put;
        const auto pattern = seed(operation, 2, 0, bytes);
        const bool provides = put == initiator_;
        if (provides) provide(2, bytes, pattern, true);
        if (!provides) poison(0, bytes, pattern);
        channel_.barrier();
        std::vector<double> micros;
        const auto what = fmt::format("{} latency", to_string(operation));
        if (initiator_) {
            const int total = plan_.latency_warmup + plan_.latency_iterations;
            for (int j = 0; j < total; ++j) {
                if (!put) poison(0, bytes, pattern);
                planted_delay(faults_.delay_s);
                const Stopwatch round_trip;
                ucp_request_param_t params{};
                if (put) {
                    wait(ucp_put_nbx(endpoint_.get(), slot(2), bytes, remote_slot(0), remote_key_.get(), &params), "ucp_put_nbx");
                    flush();
                } else {
                    wait(ucp_get_nbx(endpoint_.get(), slot(0), bytes, remote_slot(2), remote_key_.get(), &params), "ucp_get_nbx");
                }
                if (j >= plan_.latency_warmup) micros.push_back(round_trip.seconds() * 1e6);
                if (!put) check(0, bytes, pattern, what, j - plan_.latency_warmup);
            }
            say_done();
        } else {
            serve_until_done();
            if (put) check(0, bytes, pattern, what, plan_.latency_iterations - 1);
        }
        channel_.barrier();
        return stats::summarize(micros);
    }

    // Tag bandwidth: windows of sends against windows of posted receives; the initiator's
    // clock stops when the responder acknowledges the last window.
    double tag_stream(std::size_t bytes) {
        const auto pattern = seed(UcxOperation::tag, 3, 0, bytes);
        if (initiator_) provide(2, bytes, pattern, true);
        else poison(0, bytes, pattern);
        channel_.barrier();
        double seconds = 0.0;
        const Stopwatch clock;
        std::vector<ucs_status_ptr_t> requests;
        for (int sent = 0; sent < plan_.bandwidth_iterations; sent += plan_.window) {
            const int count = std::min(plan_.window, plan_.bandwidth_iterations - sent);
            requests.clear();
            for (int k = 0; k < count; ++k)
                requests.push_back(initiator_ ? send(2, bytes, data_tag) : receive(0, bytes, data_tag));
            for (auto* request : requests) wait(request, "tag bandwidth");
        }
        if (initiator_) {
            serve_until_done();  // the responder's acknowledgement
            seconds = clock.seconds();
        } else {
            say_done();
            check(0, bytes, pattern, "tag bandwidth", plan_.bandwidth_iterations - 1);
        }
        channel_.barrier();
        return seconds;
    }

    double rma_stream(UcxOperation operation, std::size_t bytes) {
        const bool put = operation == UcxOperation::put;
        const auto pattern = seed(operation, 3, 0, bytes);
        const bool provides = put == initiator_;
        if (provides) provide(2, bytes, pattern, true);
        else poison(0, bytes, pattern);
        channel_.barrier();
        const auto what = fmt::format("{} bandwidth", to_string(operation));
        double seconds = 0.0;
        if (initiator_) {
            const Stopwatch clock;
            std::vector<ucs_status_ptr_t> requests;
            for (int posted = 0; posted < plan_.bandwidth_iterations; posted += plan_.window) {
                const int count = std::min(plan_.window, plan_.bandwidth_iterations - posted);
                requests.clear();
                for (int k = 0; k < count; ++k) {
                    ucp_request_param_t params{};
                    requests.push_back(put ? ucp_put_nbx(endpoint_.get(), slot(2), bytes, remote_slot(0), remote_key_.get(), &params)
                                           : ucp_get_nbx(endpoint_.get(), slot(0), bytes, remote_slot(2), remote_key_.get(), &params));
                }
                for (auto* request : requests) wait(request, what);
            }
            if (put) flush();
            seconds = clock.seconds();
            if (!put) check(0, bytes, pattern, what, plan_.bandwidth_iterations - 1);
            say_done();
        } else {
            serve_until_done();
            if (put) check(0, bytes, pattern, what, plan_.bandwidth_iterations - 1);
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
    std::vector<std::string> mismatches_;
    bool noted_ = false;
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
