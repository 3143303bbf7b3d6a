// The RC measurement protocol both sides of a pair run (perftest's ib_write/read/send _lat
// and _bw, in one sweep): for each operation and message size, latency as a ping-pong (write,
// send) or a round trip of one read, then streaming bandwidth with `queue_depth` requests in
// flight, one way and both ways, and the message rate. The timed loops move one payload per
// size, written before the clock starts, and never write, read or check it (perftest's loops
// time the transport so); after each timed loop an untimed validation pass over the same
// buffers and size sends validation_messages(queue_depth) messages, each with a pattern of its
// own (operation, phase, message, size), each checked on arrival.
#pragma once

#include "ib/pair/peer_channel.hpp"
#include "ib/verbs/rc_endpoint.hpp"
#include "stats/summary.hpp"

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace shakedown::ib {

enum class Operation { write, read, send };
std::string_view to_string(Operation operation);  // "write", "read", "send"

struct SweepPlan {
    std::vector<std::size_t> sizes;  // bytes, each >= 2
    std::vector<Operation> operations{Operation::write, Operation::read, Operation::send};
    int latency_warmup = 100;
    int latency_iterations = 1000;
    int bandwidth_warmup = 128;       // messages streamed before the timed run
    int bandwidth_iterations = 1000;  // messages in the timed run
    int queue_depth = 128;
    bool bidirectional = true;
    double timeout_s = 30.0;  // longest wait for one completion or arrival
};

// Test-only faults: a corrupting rank flips the first byte of the first payload it provides in
// each validation pass (the timed loops never look at theirs); a delaying rank sleeps before
// every timed latency message.
struct PlantedFaults {
    bool corrupt = false;
    double delay_s = 0.0;
};

struct SizeFigures {
    Operation operation = Operation::write;
    std::size_t bytes = 0;
    stats::Summary latency_us;      // one-way for write and send (half the round trip), round trip for read
    double bandwidth_gbps = 0.0;    // one way, initiator -> responder (read: data flows back)
    double bibandwidth_gbps = 0.0;  // both ways at once, sum of the two directions
    double message_rate_mps = 0.0;  // million messages per second, one way
};

struct SweepOutcome {
    std::vector<SizeFigures> figures;     // the same on both sides of the pair
    std::vector<std::string> mismatches;  // what either side found, first few in full
    int validated_messages = 0;           // messages this side checked in the validation passes
    int timed_payload_accesses = 0;       // pattern writes or checks inside a timed loop: 0 by design
};

// Host buffer an endpoint needs for the plan: two receive slots and one send slot of the largest size.
std::size_t sweep_buffer_bytes(const SweepPlan& plan);

// Both sides call it with a connected endpoint whose host buffer has sweep_buffer_bytes().
// Throws VerbsError when a verbs call or a completion fails or the peer stops answering.
SweepOutcome run_rc_sweep(RcEndpoint& endpoint, PeerChannel& channel, bool initiator, const SweepPlan& plan,
                          PlantedFaults faults);

}  // namespace shakedown::ib
