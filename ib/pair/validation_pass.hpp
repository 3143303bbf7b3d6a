// How many messages the untimed validation pass of an RDMA or UCX loop sends, each with its own
// pattern and each checked on arrival. The timed loops move one fixed payload and never look at
// it (as OSU and perftest time the transport); this pass is what still catches a link that
// corrupts data, on every size and operation. A few messages suffice for that and keep the pass
// cheap beside the timed loop; never more than the loop's window, so the pass uses no buffer or
// queue entry the timed loop did not.
#pragma once

#include <algorithm>

namespace shakedown::ib {

inline constexpr int validation_messages_max = 4;

constexpr int validation_messages(int window) { return std::clamp(window, 1, validation_messages_max); }

}  // namespace shakedown::ib
