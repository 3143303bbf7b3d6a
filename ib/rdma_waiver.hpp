// The waiver every verbs test shares: a node without an RDMA device cannot run them, and
// says so ("no RDMA device"), rather than passing.
#pragma once

#include "ib/verbs/verbs_api.hpp"

#include <optional>
#include <string>

namespace shakedown::ib {

inline std::optional<std::string> no_rdma_device_waiver(const VerbsApi& api) {
    if (!api.device_names().empty()) return std::nullopt;
    if (const auto missing = system_verbs_missing_reason()) return "no RDMA device (" + *missing + ")";
    return "no RDMA device";
}

}  // namespace shakedown::ib
