// The UCX (UCP) measurement both ranks of a pair run: worker addresses and remote keys traded
// over a PeerChannel, then per message size tag send/receive latency (ping-pong, half the round
// trip), put latency (put + flush: remote completion, a round trip) and get latency (a round
// trip), and streaming bandwidth for each. The timed loops move one payload per size, written
// before the clock starts, into one receive slot, and never write, read or check it (OSU's
// loops time the transport so); after each timed loop an untimed validation pass over the same
// buffers and size sends validation_messages(window) messages, each with a pattern of its own,
// each checked on arrival. The transports UCX chose for the endpoint are recorded.
#pragma once

#include "ib/pair/peer_channel.hpp"
#include "ib/verbs/rc_protocol.hpp"
#include "stats/summary.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace shakedown::ib::ucx {

enum class UcxOperation { tag, put, get };
std::string_view to_string(UcxOperation operation);  // "tag", "put", "get"

struct UcxPlan {
    std::vector<std::size_t> sizes;  // bytes, each >= 1
    int latency_warmup = 20;
    int latency_iterations = 200;
    int bandwidth_iterations = 64;  // messages in the timed run
    int window = 16;                // requests in flight
    double timeout_s = 30.0;
};

struct UcxFigures {
    UcxOperation operation = UcxOperation::tag;
    std::size_t bytes = 0;
    stats::Summary latency_us;
    double bandwidth_gbs = 0.0;  // GB/s, one way
    double message_rate_mps = 0.0;
};

struct UcxOutcome {
    std::vector<UcxFigures> figures;  // the initiator's, on both sides
    std::vector<std::string> mismatches;
    std::vector<std::string> transports;  // "posix/memory", "tcp/lo", ...
    std::string endpoint_info;            // ucp_ep_print_info's text
    int validated_messages = 0;           // messages this side checked in the validation passes
    int timed_payload_accesses = 0;       // pattern writes or checks inside a timed loop: 0 by design
};

// Collective over the pair. Throws ucx::UcxError on a failed UCX call or a peer that stops.
UcxOutcome run_ucx_pair(PeerChannel& channel, bool initiator, const UcxPlan& plan, PlantedFaults faults);

}  // namespace shakedown::ib::ucx
