// Which transports UCX chose for an endpoint, from ucp_ep_print_info's lane lines
// ("lane[0]:  8:posix/memory.0 md[4] -> ... rma_bw#0 am"): "posix/memory", "tcp/eth0",
// "rc_mlx5/mlx5_0:1", each once, in lane order.
#pragma once

#include <string>
#include <vector>

namespace shakedown::ib::ucx {

std::vector<std::string> transports_in(const std::string& endpoint_info);

}  // namespace shakedown::ib::ucx
