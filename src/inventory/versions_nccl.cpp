// Compiled when SHAKEDOWN_HAVE_NCCL: the NCCL library actually loaded.
#include "inventory/inventory_sections.hpp"

#include <fmt/format.h>
#include <nccl.h>

namespace shakedown::inventory_detail {

std::optional<std::string> nccl_version() {
    int code = 0;
    if (ncclGetVersion(&code) != ncclSuccess) return std::nullopt;
    // Since NCCL 2.9 the code is major * 10000 + minor * 100 + patch (22809 = 2.28.9).
    return fmt::format("{}.{}.{}", code / 10000, (code / 100) % 100, code % 100);
}

}  // namespace shakedown::inventory_detail
