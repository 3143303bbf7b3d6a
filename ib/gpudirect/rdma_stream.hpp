// A plain RDMA stream for memory the CPU cannot touch (GPU memory): `messages` writes or
// reads of `bytes` with up to `depth` in flight, from the initiator only; the caller moves
// and checks the data around it. Returns seconds from the first post to the last completion.
#pragma once

#include "ib/rc_endpoint.hpp"

namespace shakedown::ib {

double stream_rdma(RcEndpoint& endpoint, WorkKind kind, std::size_t local_offset, std::size_t remote_offset,
                   std::size_t bytes, int messages, int depth, double timeout_s);

}  // namespace shakedown::ib
