#include "ib/gpudirect/rdma_stream.hpp"

#include "core/clock.hpp"

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

}  // namespace shakedown::ib
