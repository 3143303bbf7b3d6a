#include "ib/gpudirect/rdma_stream.hpp"

#include "comm/payload.hpp"
#include "core/clock.hpp"
#include "ib/pair/validation_pass.hpp"

#include <fmt/format.h>

namespace shakedown::ib {

double stream_rdma(RcEndpoint& endpoint, WorkKind kind, std::size_t local_offset, std::size_t remote_offset,
                   std::size_t bytes, int messages, int depth, double timeout_s) {
    WorkRequest request;
    request.kind = kind;
    request.local = &endpoint.region();
    request.local_offset = local_offset;
    request.length = bytes;
    request.remote_address = endpoint.peer().buffer_address + remote_offset;
    request.rkey = endpoint.peer().rkey;
    int posted = 0;
    int completed = 0;
    std::vector<Completion> polled;
    const Stopwatch clock;
    Stopwatch idle;
    while (completed < messages) {
        for (; posted < messages && posted - completed < depth; ++posted) {
            request.id = static_cast<std::uint64_t>(posted);
            endpoint.qp().post(request);
        }
        polled.clear();
        if (endpoint.send_cq().poll(polled, 32) > 0) idle.restart();
        for (const auto& completion : polled) {
            if (!completion.ok) throw VerbsError(fmt::format("{} completed with error: {}", to_string(kind), completion.error));
            ++completed;
        }
        if (idle.seconds() > timeout_s)
            throw VerbsError(fmt::format("{} stream: no completion for {} s ({} of {} done)", to_string(kind), timeout_s,
                                         completed, messages));
    }
    return clock.seconds();
}

ValidatedStream run_validated_stream(RcEndpoint& endpoint, PeerChannel& channel, bool initiator, StreamMemory& memory,
                                     const StreamSetup& setup) {
    const bool write = setup.kind == WorkKind::rdma_write;
    const bool provides = write == initiator;
    const std::size_t local = write ? setup.source_offset : setup.landing_offset;
    const std::size_t remote = write ? setup.landing_offset : setup.source_offset;
    // Message 0 is the timed payload, validation messages follow: each its own pattern.
    const auto seed = [&](int number) { return comm::payload_seed(static_cast<std::uint64_t>(number) * 16 + (write ? 1 : 2), setup.bytes); };

    ValidatedStream outcome;
    if (provides) memory.fill(setup.source_offset, setup.bytes, seed(0), false);
    channel.barrier();
    double gbps = 0.0;
    if (initiator) {
        const double seconds = stream_rdma(endpoint, setup.kind, local, remote, setup.bytes, setup.messages, setup.depth, setup.timeout_s);
        gbps = static_cast<double>(setup.bytes) * setup.messages * 8 / seconds / 1e9;
    }
    channel.barrier();

    for (int k = 0; k < validation_messages(setup.depth); ++k) {
        if (provides)
            memory.fill(setup.source_offset, setup.bytes, seed(k + 1), setup.corrupt && k == 0);
        else
            memory.spoil(setup.landing_offset, setup.bytes, seed(k + 1));
        channel.barrier();
        if (initiator) stream_rdma(endpoint, setup.kind, local, remote, setup.bytes, 1, 1, setup.timeout_s);
        channel.barrier();  // landed, and the source is not overwritten before it was read
        if (!provides) {
            ++outcome.validated_messages;
            const auto bad = memory.first_mismatch(setup.landing_offset, setup.bytes, seed(k + 1));
            if (bad && outcome.mismatches.empty())
                outcome.mismatches.push_back(fmt::format("payload mismatch after RDMA {} of {} B, message {}: byte {}",
                                                         to_string(setup.kind), setup.bytes, k, *bad));
        }
    }
    outcome.gbps = channel.swap(gbps) + gbps;  // only the initiator measured: both sides keep its figure
    return outcome;
}

}  // namespace shakedown::ib
