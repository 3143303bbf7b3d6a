#include "ib/verbs/verbs_api.hpp"

#include <fmt/format.h>

namespace shakedown::ib {

std::string_view to_string(LinkLayer layer) {
    switch (layer) {
    case LinkLayer::infiniband: return "InfiniBand";
    case LinkLayer::ethernet: return "Ethernet";
    case LinkLayer::unspecified: break;
    }
    return "unspecified";
}

std::string_view to_string(QpState state) {
    switch (state) {
    case QpState::reset: return "RESET";
    case QpState::init: return "INIT";
    case QpState::ready_to_receive: return "RTR";
    case QpState::ready_to_send: return "RTS";
    case QpState::error: return "ERR";
    }
    return "?";
}

std::string_view to_string(WorkKind kind) {
    switch (kind) {
    case WorkKind::send: return "send";
    case WorkKind::receive: return "receive";
    case WorkKind::rdma_write: return "RDMA write";
    case WorkKind::rdma_read: return "RDMA read";
    }
    return "?";
}

std::string format_gid(const Gid& gid) {
    std::string text;
    for (std::size_t i = 0; i < gid.size(); i += 2) {
        if (i != 0) text += ':';
        text += fmt::format("{:02x}{:02x}", gid[i], gid[i + 1]);
    }
    return text;
}

}  // namespace shakedown::ib
