// A plain RDMA stream for memory the CPU cannot touch (GPU memory), and the measurement
// gpudirect_rdma makes with it: a timed stream of one payload, then an untimed validation pass.
#pragma once

#include "ib/pair/peer_channel.hpp"
#include "ib/verbs/rc_endpoint.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace shakedown::ib {

// `messages` writes or reads of `bytes` with up to `depth` in flight, from the initiator only;
// nothing touches the data. Returns seconds from the first post to the last completion.
double stream_rdma(RcEndpoint& endpoint, WorkKind kind, std::size_t local_offset, std::size_t remote_offset,
                   std::size_t bytes, int messages, int depth, double timeout_s);

// The registered memory a validated stream moves, reached only through this: GPU memory through
// copies in gpudirect_rdma, host memory in the tests. Offsets are into the registered region.
class StreamMemory {
public:
    virtual ~StreamMemory() = default;
    // The pattern of `seed`; `corrupt` flips its first byte (the planted fault).
    virtual void fill(std::size_t offset, std::size_t bytes, std::uint64_t seed, bool corrupt) = 0;
    // No byte as the pattern of `seed` has it: a message that never lands shows.
    virtual void spoil(std::size_t offset, std::size_t bytes, std::uint64_t seed) = 0;
    virtual std::optional<std::size_t> first_mismatch(std::size_t offset, std::size_t bytes, std::uint64_t seed) = 0;
};

struct StreamSetup {
    WorkKind kind = WorkKind::rdma_write;  // rdma_write: the initiator's source to the responder; rdma_read: back
    std::size_t bytes = 0;
    int messages = 1;
    int depth = 1;
    double timeout_s = 30.0;
    std::size_t landing_offset = 0;  // where data lands, on either side
    std::size_t source_offset = 0;   // where it comes from
    bool corrupt = false;            // planted: the first validation payload this side provides is corrupted
};

struct ValidatedStream {
    double gbps = 0.0;                    // the initiator's figure, on both sides
    std::vector<std::string> mismatches;  // this side's: "payload mismatch after RDMA write of 8 B, message 0: byte 3"
    int validated_messages = 0;           // messages this side checked
};

// Both sides call it. Timed: one payload, filled before the barrier both start from, streamed by
// the initiator until its last completion (for a write, the responder's acknowledgement: remote
// completion; for a read, the data is here). Then untimed, the same buffers and size:
// validation_messages(depth) messages one at a time, each its own pattern, checked where it lands.
ValidatedStream run_validated_stream(RcEndpoint& endpoint, PeerChannel& channel, bool initiator, StreamMemory& memory,
                                     const StreamSetup& setup);

}  // namespace shakedown::ib
